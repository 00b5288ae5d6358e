package integration

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// CMD forks a grandchild that calls setsid: it leaves CMD's process group,
// so the group's stop signal never reaches it and tandem cannot wait for
// it. tandem still exits as soon as CMD exits, with CMD's code (no hang on
// a process it does not own). What happens to the escapee then:
//   - tandem as PID 1 (a container): the kernel kills every process of the
//     PID namespace when its init exits; the escapee dies with it.
//   - tandem not PID 1 (shareProcessNamespace, a shell): the escapee was
//     reparented to tandem (a subreaper), and when tandem exits it goes on
//     to the next subreaper or init; it keeps running.
func TestFaultSetsidEscapee(t *testing.T) {
	t.Parallel()
	t.Run("not PID 1: reparented, keeps running", func(t *testing.T) {
		t.Parallel()
		escapee, sid := runEscape(t, procOptions{})
		fd := openPidfd(t, escapee)
		t.Cleanup(fd.kill)
		if fd.exited(0) {
			t.Fatalf("escapee %d died with tandem; expected it reparented", escapee)
		}
		if sid != escapee {
			t.Errorf("escapee's session %d, want its own (%d): setsid did not happen", sid, escapee)
		}
		st, ok := readProcStat(escapee)
		if !ok {
			t.Fatalf("escapee %d has no /proc/%d/stat", escapee, escapee)
		}
		if st.ppid == os.Getpid() {
			t.Errorf("escapee's parent is the test itself (%d); expected init or a subreaper", st.ppid)
		}
	})
	t.Run("PID 1: dies with the namespace", func(t *testing.T) {
		t.Parallel()
		escapee, _ := runEscape(t, procOptions{attr: newPIDNamespace(t)})
		fd, err := unix.PidfdOpen(escapee, 0)
		if err != nil {
			// Already gone and reaped: the namespace's end took it.
			return
		}
		defer unix.Close(fd)
		if !pidfd(fd).exited(testTimeout) {
			pidfd(fd).kill()
			t.Fatalf("escapee %d survived the end of tandem's PID namespace", escapee)
		}
	})
}

// runEscape runs tandem over fault-escape and returns the escapee's host
// pid and session id, after checking tandem exited 0 as CMD did.
func runEscape(t *testing.T, opts procOptions) (pid, sid int) {
	t.Helper()
	out := inDir(tempDir(t), "out")
	p := startTandem(t, opts, cmdArgs([]string{"run", "--grace", "1h"}, helper("fault-escape", out))...)
	// CMD's exit is logged only after the escapee reported: it is running
	// outside CMD's group while tandem decides to exit.
	exited := p.waitEvent("cmd-exited")
	if exited.Num("exit_code") != 0 {
		t.Fatalf("CMD exited %v", exited)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want CMD's 0", code)
	}
	if p.hasEvent("leftovers") {
		t.Error("the escapee was taken for a member of CMD's group")
	}
	fields := strings.Fields(waitLines(t, out, 1)[0]) // "escapee PID SID"
	pid, _ = strconv.Atoi(fields[1])
	sid, _ = strconv.Atoi(fields[2])
	return pid, sid
}
