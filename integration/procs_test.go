package integration

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Tools for watching processes the test did not start itself (CMD, its
// leftovers and orphans, escapees, probes): pidfds, /proc, and the
// "WORD PID" lines helpers report their pids in.

// pidfd is a handle on a process that survives pid reuse: such processes
// are not the test's children, so it cannot wait for them.
type pidfd int

// openPidfd opens a pidfd on pid, closed when the test ends.
func openPidfd(t testing.TB, pid int) pidfd {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return pidfd(fd)
}

// openPidfds opens a pidfd on each process, closed when the test ends.
func openPidfds(t testing.TB, pids []int) []pidfd {
	t.Helper()
	fds := make([]pidfd, 0, len(pids))
	for _, pid := range pids {
		fds = append(fds, openPidfd(t, pid))
	}
	return fds
}

// exited reports whether the process has exited, waiting up to d (0: just
// look). A pidfd is readable once its process has exited, zombie or not.
func (fd pidfd) exited(d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(d.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0
	}
}

// kill sends SIGKILL through the pidfd (cleanup of deliberate escapees).
func (fd pidfd) kill() {
	_ = unix.PidfdSendSignal(int(fd), unix.SIGKILL, nil, 0)
}

// waitReaped blocks until every process behind fds has been reaped, not
// merely exited: a pidfd reports POLLHUP once its process is gone from the
// process table (Linux 6.9 and later), and a zombie never is.
func waitReaped(t testing.TB, fds []pidfd) {
	t.Helper()
	waitReapedN(t, fds, len(fds))
}

// waitReapedN blocks until at least n of the processes behind fds have been
// reaped, and returns those.
func waitReapedN(t testing.TB, fds []pidfd, n int) map[pidfd]bool {
	t.Helper()
	reaped := make(map[pidfd]bool, n)
	pending := make([]unix.PollFd, 0, len(fds))
	for _, fd := range fds {
		pending = append(pending, unix.PollFd{Fd: int32(fd)}) // no events: wake on hang-up only
	}
	deadline := time.Now().Add(testTimeout)
	for len(reaped) < n {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("%d of %d processes reaped within %s, want %d", len(reaped), len(fds), testTimeout, n)
		}
		_, err := unix.Poll(pending, int(left.Milliseconds())+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			t.Fatalf("poll pidfds: %v", err)
		}
		still := pending[:0]
		for _, p := range pending {
			if p.Revents&unix.POLLHUP != 0 {
				reaped[pidfd(p.Fd)] = true
				continue
			}
			p.Revents = 0
			still = append(still, p)
		}
		pending = still
	}
	return reaped
}

// processGone reports whether pid no longer exists (not even a zombie).
func processGone(pid int) bool {
	return errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// procStat is the part of /proc/PID/stat the tests look at.
type procStat struct {
	pid   int
	comm  string
	state byte
	ppid  int
}

// readProcStat parses /proc/PID/stat; comm may hold spaces and parentheses,
// so fields are counted from the last ')'.
func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	text := string(data)
	open, end := strings.IndexByte(text, '('), strings.LastIndexByte(text, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	fields := strings.Fields(text[end+1:])
	if len(fields) < 2 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(fields[1])
	return procStat{pid: pid, comm: text[open+1 : end], state: fields[0][0], ppid: ppid}, true
}

// parsePIDLine reads a helper's "WORD PID[ ...]" report line ("ready 42",
// "host 42"): ok is false for any other line.
func parsePIDLine(line, word string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(line, word+" ")
	if !ok {
		return 0, false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(fields[0])
	return pid, err == nil
}

// waitReadyPID waits for the first line of path, the "ready PID" that
// record-signals and its kin write before anything else, and returns the pid.
func waitReadyPID(t testing.TB, path string) int {
	t.Helper()
	first := waitLines(t, path, 1)[0]
	pid, ok := parsePIDLine(first, "ready")
	if !ok {
		t.Fatalf("%s: first line %q, want \"ready PID\"", path, first)
	}
	return pid
}
