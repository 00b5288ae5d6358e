package process

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The reaper of this package waits for any child (wait4(-1)): these tests
// start processes only through Start, never with os/exec, whose Wait would
// race the reaper for the same children.

// safetyBound fails a test that hangs instead of stalling the suite; no test
// synchronises on it.
const safetyBound = 30 * time.Second

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(safetyBound):
		t.Fatalf("no %s within %s", what, safetyBound)
		var zero T
		return zero
	}
}

// start starts argv and kills its group when the test ends.
func start(t *testing.T, argv []string, opts Options) *Child {
	t.Helper()
	c, err := Start(argv, opts)
	if err != nil {
		t.Fatalf("Start(%q): %v", argv, err)
	}
	t.Cleanup(func() { _ = Signal(c.Pid, 9, true) })
	return c
}

// startWithStdout starts argv with its stdout on a pipe, and returns a
// reader of the lines it writes.
func startWithStdout(t *testing.T, argv []string, opts Options) (*Child, *bufio.Reader) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	opts.Files = []uintptr{0, w.Fd(), 2}
	c := start(t, argv, opts)
	w.Close()
	return c, bufio.NewReader(r)
}

// readPid reads one line holding a pid.
func readPid(t *testing.T, r *bufio.Reader) int {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read a pid: %v (got %q)", err, line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("not a pid: %q", line)
	}
	return pid
}

// waitUntil re-checks done after each batch the reaper reaped, until it
// holds.
func waitUntil(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.After(safetyBound)
	for !done() {
		select {
		case <-StartReaper().Reaped():
		case <-deadline:
			t.Fatalf("not %s within %s", what, safetyBound)
		}
	}
}

// processGone: no such process, not even a zombie (it was reaped).
func processGone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}
