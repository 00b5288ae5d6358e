package integration

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// `tandem wait` returns 0 once every condition holds.
func TestWaitConditionsHold(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	gate := inDir(dir, "gate")
	port, listen := scUnlistenedPort(t)
	tcpCond := "tcp:127.0.0.1:" + strconv.Itoa(port)
	p := startTandem(t, procOptions{}, "wait", "--for", "file:"+gate, "--for", tcpCond,
		"--interval", "10ms", "--timeout", "1h")
	scWriteFile(t, gate, "")
	p.waitFor("file condition holds", func(l kit.Line) bool {
		return l.Is("condition-holds") && l.Field("condition") == "file:"+gate
	})
	select {
	case <-p.exited:
		t.Fatalf("wait exited (code %d) before the tcp condition held", p.code)
	default:
	}
	listen()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if n := len(p.scLinesWith("condition-holds")); n != 2 {
		t.Fatalf("%d conditions logged as holding, want 2", n)
	}
}

// On timeout, exit 1 naming the conditions that did not hold, and only them.
func TestWaitTimeoutNamesMissing(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	present, missing := inDir(dir, "present"), inDir(dir, "missing")
	scWriteFile(t, present, "")
	port, _ := scUnlistenedPort(t)
	tcpCond := "tcp:127.0.0.1:" + strconv.Itoa(port)
	code, _, stderr := runTandem(t, procOptions{}, "wait", "--for", "file:"+present, "--for", "file:"+missing,
		"--for", tcpCond, "--interval", "20ms", "--timeout", "300ms")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	var verdict string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "still not holding") {
			verdict = line
		}
	}
	if !strings.Contains(verdict, "file:"+missing) || !strings.Contains(verdict, tcpCond) || strings.Contains(verdict, "file:"+present) {
		t.Fatalf("timeout message %q: want file:%s and %s named, not file:%s; stderr:\n%s", verdict, missing, tcpCond, present, stderr)
	}
}

// A malformed condition is a usage error (2) before anything starts, in
// wait, main --wait-for and sidecar --ready-when alike; https:// points to
// exec: with the image's own client.
func TestWaitMalformedConditions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cond string
		says []string
	}{
		{"tcp:nohost", []string{"tcp:HOST:PORT"}},
		{"tcp:127.0.0.1:0", []string{"port from 1 to 65535"}},
		{"https://x", []string{"https is not supported", "exec:"}},
		{"bogus:1", []string{`unknown kind "bogus"`}},
		{"exec:", []string{"exec: needs a program"}},
		{"file:", []string{"file: needs a path"}},
	}
	for _, tc := range cases {
		for _, mode := range []string{"wait", "main", "sidecar"} {
			t.Run(mode+" "+tc.cond, func(t *testing.T) {
				t.Parallel()
				dir := tempDir(t)
				marker, ready := inDir(dir, "marker"), inDir(dir, "ready")
				var args []string
				switch mode {
				case "wait":
					args = []string{"wait", "--for", tc.cond, "--timeout", "1h"}
				case "main":
					args = cmdArgs([]string{"main", "--wait-for", tc.cond, "--done-file", inDir(dir, "done")}, helper("mark", marker))
				case "sidecar":
					args = cmdArgs([]string{"sidecar", "--ready-when", tc.cond, "--ready-file", ready}, helper("mark", marker))
				}
				code, _, stderr := runTandem(t, procOptions{}, args...)
				if code != 2 {
					t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
				}
				for _, want := range append([]string{tc.cond}, tc.says...) {
					if !strings.Contains(stderr, want) {
						t.Fatalf("stderr does not say %q:\n%s", want, stderr)
					}
				}
				for _, path := range []string{marker, ready, inDir(dir, "done")} {
					if _, err := os.Stat(path); err == nil {
						t.Fatalf("%s exists: something started despite the usage error", path)
					}
				}
			})
		}
	}
}
