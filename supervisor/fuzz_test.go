package supervisor

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Native fuzz targets for everything tandem parses from users, files and
// other processes. `make fuzz` runs each; a crasher becomes a seed under
// testdata/fuzz and a case in the matching table test.

func FuzzParseCondition(f *testing.F) {
	for _, seed := range []string{
		"file:/shared/done", "tcp:127.0.0.1:5432", "tcp:[::1]:80", "http://127.0.0.1:15021/healthz/ready",
		"exec:pg_isready -h 127.0.0.1", "https://x/", "tcp:localhost", "exec:", "file:", "", ":", "http://h:0/",
		"HTTP://h", "exec:\t\n", "tcp:h:+80", "tcp:h:0080",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCondition(s)
		if err != nil {
			if ExitCodeOf(err) != ExitUsage {
				t.Fatalf("ParseCondition(%q) error %v is not a usage error", s, err)
			}
			return
		}
		if c.String() != s {
			t.Fatalf("String() = %q, want the input %q", c.String(), s)
		}
		switch c.kind {
		case condFile:
			if c.path == "" {
				t.Fatalf("file condition %q with an empty path", s)
			}
		case condTCP:
			host, port, err := net.SplitHostPort(c.addr)
			n, convErr := strconv.Atoi(port)
			if err != nil || host == "" || convErr != nil || n < 1 || n > 65535 {
				t.Fatalf("tcp condition %q with address %q", s, c.addr)
			}
		case condHTTP:
			checkHTTPTarget(t, s, c.http)
		case condExec:
			if len(c.argv) == 0 {
				t.Fatalf("exec condition %q without a program", s)
			}
			for _, arg := range c.argv {
				if arg == "" || strings.IndexFunc(arg, unicode.IsSpace) >= 0 {
					t.Fatalf("exec condition %q: argument %q holds white space", s, arg)
				}
			}
		default:
			t.Fatalf("condition %q of unknown kind %d", s, c.kind)
		}
		// A condition is its text: parsing it again gives the same thing.
		again, err := ParseCondition(c.String())
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("re-parse of %q = %+v, %v; want %+v", s, again, err, c)
		}
	})
}

// checkHTTPTarget: nothing in the URL can end up as extra request lines or
// headers (the request is built by concatenation).
func checkHTTPTarget(t *testing.T, raw string, target httpTarget) {
	t.Helper()
	if !strings.HasPrefix(target.path, "/") && target.path != "*" {
		t.Fatalf("%q: request path %q does not start with /", raw, target.path)
	}
	if strings.ContainsAny(target.path, " \r\n\x00") || strings.ContainsAny(target.host, " \r\n\x00") {
		t.Fatalf("%q: request line or Host header would be broken: path %q host %q", raw, target.path, target.host)
	}
	host, port, err := net.SplitHostPort(target.hostPort)
	n, convErr := strconv.Atoi(port)
	if err != nil || host == "" || convErr != nil || n < 1 || n > 65535 {
		t.Fatalf("%q: dial address %q (host %q)", raw, target.hostPort, host)
	}
}

func FuzzParseHTTPURL(f *testing.F) {
	for _, seed := range []string{
		"http://127.0.0.1:15020/quitquitquit", "http://localhost", "http://[::1]:9091/q?x=1", "https://x/",
		"http://", "http://h:0", "http://h/a b", "http://h/\r\nX: y", "http://u:p@h:1/#f", "http://h:65535",
		"http://[fe80::1%25eth0]:80/", "HTTP://H/",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		target, err := parseHTTPURL(raw)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(raw)) {
				t.Fatalf("error %q does not name the URL %q", err, raw)
			}
			return
		}
		if strings.HasPrefix(strings.ToLower(raw), "https://") {
			t.Fatalf("https URL %q accepted", raw)
		}
		checkHTTPTarget(t, raw, target)
		// What tandem sends, read back as a URL, is the same target. (An IPv6
		// zone is unescaped in the Host header: it reads back otherwise.)
		if strings.Contains(target.host, "%") {
			return
		}
		again, err := parseHTTPURL("http://" + target.host + target.path)
		if err != nil {
			t.Fatalf("%q → host %q path %q does not parse again: %v", raw, target.host, target.path, err)
		}
		if again != target {
			t.Fatalf("%q → %+v → %+v", raw, target, again)
		}
	})
}

func FuzzParseSignal(f *testing.F) {
	for _, seed := range []string{"TERM", "SIGTERM", "term", "15", "SIG34", "64", "0", "32", "65", "", "SIG", "+9", " usr2 ", "sigrtmin"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseSignal(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("error %q does not name the value %q", err, s)
			}
			return
		}
		if sig < 1 || sig > lastSignal || sig == 32 || sig == 33 {
			t.Fatalf("ParseSignal(%q) = %d, outside 1..64 or glibc's 32/33", s, sig)
		}
		// The name tandem logs and writes reads back as the same signal,
		// and so does the number.
		name := SignalName(sig)
		if again, err := ParseSignal(name); err != nil || again != sig {
			t.Fatalf("ParseSignal(%q) = %d; its name %q re-parses as %d, %v", s, sig, name, again, err)
		}
		if again, err := ParseSignal(strconv.Itoa(int(sig))); err != nil || again != sig {
			t.Fatalf("ParseSignal(%q) = %d; its number re-parses as %d, %v", s, sig, again, err)
		}
	})
}

func FuzzParseRewrite(f *testing.F) {
	for _, seed := range []string{"TERM:QUIT", "15:3", "KILL:TERM", "TERM", ":", "TERM:", "a:b:c", "SIG40:SIG41", "URG:TERM"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := ParseRewrite(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("error %q does not name the value %q", err, s)
			}
			return
		}
		if !isForwardable(from) {
			t.Fatalf("ParseRewrite(%q): FROM %s is never forwarded", s, SignalName(from))
		}
		if to < 1 || to > lastSignal || to == 32 || to == 33 {
			t.Fatalf("ParseRewrite(%q): TO %d out of range", s, to)
		}
		again := SignalName(from) + ":" + SignalName(to)
		if f2, t2, err := ParseRewrite(again); err != nil || f2 != from || t2 != to {
			t.Fatalf("ParseRewrite(%q) = %d:%d; %q re-parses as %d:%d, %v", s, from, to, again, f2, t2, err)
		}
	})
}

var statusFileSeeds = []string{
	`{"version":1,"name":"main","event":"done","exitCode":0,"signal":"","reason":"exited","time":"2026-11-30T06:22:52.258974522Z"}` + "\n",
	`{"version":1,"event":"ready","reason":"ready"}`,
	`{"version":0,"event":"done"}`, `{"version":1}`, "", "\n", "garbage", `{"version":1,"event":"done","time":"2026-11-30T06:22:52+14:00"}`,
	`{"version":1e0,"event":"done"}`, `{"version":1,"event":"done","exitCode":-5}`, "{\"version\":1,\"event\":\"d\\n\"}",
}

// FuzzParseStatusFile: no panic, never a status with version < 1 or no
// event, and whatever is accepted is written back (as WriteStatusFile does)
// as one line that parses as the same status.
func FuzzParseStatusFile(f *testing.F) {
	for _, seed := range statusFileSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parsed := ParseStatusFile(data)
		if parsed == nil {
			return
		}
		if parsed.Version < 1 || parsed.Event == "" {
			t.Fatalf("ParseStatusFile(%q) = %+v: version < 1 or no event", data, parsed)
		}
		want := *parsed
		want.Version = statusFileVersion // the writer's version, whatever was read
		line, err := json.Marshal(want)
		if err != nil {
			return // a time JSON cannot hold: WriteStatusFile returns this error
		}
		if bytes.ContainsAny(line, "\r\n") {
			t.Fatalf("status %+v marshals to more than one line: %q", want, line)
		}
		again := ParseStatusFile(append(line, '\n'))
		if again == nil || again.Name != want.Name || again.Event != want.Event || again.ExitCode != want.ExitCode ||
			again.Signal != want.Signal || again.Reason != want.Reason || again.Version != want.Version || !again.Time.Equal(want.Time) {
			t.Fatalf("round trip of %q: wrote %s, read %+v", data, line, again)
		}
	})
}

// FuzzReadStatusFile: a file of any content reads as present, without an
// error, as ParseStatusFile of its first 64 KiB; what was accepted is
// written by WriteStatusFile and read back the same.
func FuzzReadStatusFile(f *testing.F) {
	for _, seed := range statusFileSeeds {
		f.Add([]byte(seed))
	}
	f.Add(append([]byte(statusFileSeeds[0]), bytes.Repeat([]byte("x"), maxStatusFileRead)...))
	// One directory per worker: a t.TempDir per input would make file
	// system work, not reading, the bottleneck.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		want := ParseStatusFile(data[:min(len(data), maxStatusFileRead)])
		checkReadStatusFile(t, dir, data, want)
		if want == nil {
			return
		}
		path := filepath.Join(dir, "written")
		if err := WriteStatusFile(path, *want); err != nil {
			if _, marshalErr := json.Marshal(want); marshalErr != nil {
				return // e.g. a time JSON cannot hold; WriteStatusFile said so
			}
			t.Fatalf("WriteStatusFile(%+v): %v", want, err)
		}
		again, present, err := ReadStatusFile(path)
		if err != nil || !present || again == nil || again.ExitCode != want.ExitCode || again.Name != want.Name ||
			again.Event != want.Event || again.Version != statusFileVersion {
			t.Fatalf("ReadStatusFile of what was written for %+v = %+v, %v, %v", want, again, present, err)
		}
	})
}

// checkReadStatusFile: ReadStatusFile of data agrees with ParseStatusFile.
func checkReadStatusFile(t *testing.T, dir string, data []byte, want *StatusFile) {
	t.Helper()
	path := filepath.Join(dir, "done")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, present, err := ReadStatusFile(path)
	if err != nil || !present || !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadStatusFile(%q) = %+v, %v, %v; want %+v, present", data, got, present, err, want)
	}
}

func FuzzParsePeerCmdline(f *testing.F) {
	for _, argv := range [][]string{
		{"tandem", "sidecar", "--name", "proxy", "--", "envoy"},
		{"/shared/bin/tandem", "sidecar", "--name=proxy", "--done-file", "/x", "--", "envoy", "--name", "evil"},
		{"tandem", "sidecar", "-name", "p"},
		{"tandem", "main", "--", "job"},
		{"tandem", "sidecar", "--name"},
		{"./tandem", "sidecar"},
		{"not-tandem", "sidecar"},
		{"tandem"},
		{""},
	} {
		f.Add([]byte(strings.Join(argv, "\x00") + "\x00"))
	}
	f.Fuzz(func(t *testing.T, cmdline []byte) {
		name, ok := parsePeerCmdline(cmdline)
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if !ok {
			if name != "" {
				t.Fatalf("%q: not a peer, but name %q", cmdline, name)
			}
			return
		}
		// Only `tandem sidecar` is ever a peer: never any other program.
		if len(argv) < 2 || filepath.Base(argv[0]) != "tandem" || argv[1] != "sidecar" {
			t.Fatalf("%q taken for a tandem sidecar", cmdline)
		}
		if strings.Contains(name, "\x00") {
			t.Fatalf("%q: name %q spans arguments", cmdline, name)
		}
		// What CMD is given after `--` can never name the peer.
		const spoof = "spoofed-name"
		if name != spoof {
			tail := append(bytes.TrimRight(bytes.Clone(cmdline), "\x00"), []byte("\x00--\x00--name\x00"+spoof+"\x00--name="+spoof+"\x00")...)
			if got, ok := parsePeerCmdline(tail); !ok || got == spoof {
				t.Fatalf("%q: CMD's arguments after -- changed the peer to %q, %v", tail, got, ok)
			}
		}
		// A command line tandem would write round-trips its name.
		if !strings.Contains(name, "\x00") && name != "" && !strings.HasPrefix(name, "-") {
			line := []byte("tandem\x00sidecar\x00--name\x00" + name + "\x00--\x00cmd\x00")
			if got, ok := parsePeerCmdline(line); !ok || got != name {
				t.Fatalf("--name %q read back as %q, %v", name, got, ok)
			}
		}
	})
}
