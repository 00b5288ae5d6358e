package probe

import (
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/tandem-sh/tandem/internal/testkit"
)

// Native fuzz targets for what tandem parses from users, files and other
// processes. `make fuzz` runs each; a crasher becomes a seed under
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
		c, err := Parse(s)
		if testkit.Rejected(t, err, s) {
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
		again, err := Parse(c.String())
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("re-parse of %q = %+v, %v; want %+v", s, again, err, c)
		}
	})
}

// checkHTTPTarget: nothing in the URL can end up as extra request lines or
// headers (the request is built by concatenation).
func checkHTTPTarget(t *testing.T, raw string, target Target) {
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
		target, err := ParseURL(raw)
		if testkit.Rejected(t, err, raw) {
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
		again, err := ParseURL("http://" + target.host + target.path)
		if err != nil {
			t.Fatalf("%q → host %q path %q does not parse again: %v", raw, target.host, target.path, err)
		}
		again.raw = target.raw // the text differs; what is sent must not
		if again != target {
			t.Fatalf("%q → %+v → %+v", raw, target, again)
		}
	})
}
