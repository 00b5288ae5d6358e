package integration

import (
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRunCleanSignalMask: CMD starts with no signal blocked even when tandem
// inherited a mask (Go's fork would pass it on; tandem re-executes itself as
// a trampoline that clears it), and signals blocked at tandem's start still
// reach it and are forwarded.
func TestRunCleanSignalMask(t *testing.T) {
	launch := helper("run-exec", "--block=USR1,TERM", "--")

	t.Run("launcher", func(t *testing.T) {
		// The control: the launcher does hand the mask down. (The Go
		// runtime of the helper unblocks SIGTERM itself; SIGUSR1 it keeps.)
		out := inDir(tempDir(t), "status")
		if err := exec.Command(launch[0], append(launch[1:], helper("report-status", out)...)...).Run(); err != nil {
			t.Fatal(err)
		}
		if got := runStatusMask(t, waitFile(t, out), "SigBlk"); got&runSigBit(unix.SIGUSR1) == 0 {
			t.Fatalf("launcher: SigBlk %#x lacks SIGUSR1", got)
		}
	})

	t.Run("tandem", func(t *testing.T) {
		out := inDir(tempDir(t), "status")
		p := startTandem(t, procOptions{prefix: launch}, cmdArgs([]string{"run"}, helper("run-status-wait", out))...)
		runKillGroupOnFailure(t, p, false)
		if got := runStatusMask(t, waitFile(t, out), "SigBlk"); got != 0 {
			t.Errorf("CMD started with SigBlk %#x, want 0", got)
		}
		// CMD exits 0 on SIGUSR1, which was blocked when tandem started.
		p.signal(syscall.SIGUSR1)
		if code := p.wait(); code != 0 {
			t.Fatalf("tandem exited %d, want 0", code)
		}
	})
}
