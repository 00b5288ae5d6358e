// Package testkit holds the assertions that the unit tests of several
// packages share: parsers' errors, parsed fixtures, atomic writes. (The
// process- and pod-level tests have their own kit under integration/.)
package testkit

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Parsed is what parse makes of each of raw, which the test takes as valid:
// a value parse rejects fails the test.
func Parsed[T any](t testing.TB, parse func(string) (T, error), raw ...string) []T {
	t.Helper()
	out := make([]T, 0, len(raw))
	for _, r := range raw {
		v, err := parse(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// WantsError reports whether a table case wants an error (want is not
// empty); err must then contain want. format and args say what was called
// and what it returned beside err.
func WantsError(t testing.TB, err error, want, format string, args ...any) bool {
	t.Helper()
	if want == "" {
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: error %v, want one containing %q", fmt.Sprintf(format, args...), err, want)
	}
	return true
}

// Rejected reports whether a parser rejected value (err is set). Its error
// must name the value, quoted, so that the user sees which one was wrong.
func Rejected(t testing.TB, err error, value string) bool {
	t.Helper()
	if err == nil {
		return false
	}
	if !strings.Contains(err.Error(), strconv.Quote(value)) {
		t.Fatalf("error %q does not name the value %q", err, value)
	}
	return true
}

// OnlyEntry fails the test unless dir holds name alone: an atomic write
// leaves no temporary file behind.
func OnlyEntry(t testing.TB, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("%s holds %q, want only %s (no temporary file left)", dir, names, name)
	}
}

// ClosedPort is a TCP port on 127.0.0.1 with nothing listening: a dial
// there is refused.
func ClosedPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}
