package integration

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// run-status-wait OUT: write /proc/self/status to OUT, then wait for SIGUSR1
// and exit 0. Only SIGUSR1 is caught: every other disposition stays as
// inherited.
func helperRunStatusWait(args []string) int {
	// Read before signal.Notify: the runtime's signal thread blocks most
	// signals, and it may be the main thread that /proc/self/status shows.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 97
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	appendLine(args[0], string(status))
	<-usr1
	return 0
}

// TestRunInheritedIgnores: SIGHUP and SIGINT that were ignored when tandem
// started (nohup, a background job) stay ignored by tandem, which neither
// dies of them nor forwards them, and by CMD.
func TestRunInheritedIgnores(t *testing.T) {
	ignored := runSigBit(unix.SIGHUP) | runSigBit(unix.SIGINT)
	launch := helper("run-exec", "--ignore=HUP,INT", "--")

	t.Run("launcher", func(t *testing.T) {
		// The control: the launcher does hand the ignores down.
		out := inDir(tempDir(t), "status")
		if err := exec.Command(launch[0], append(launch[1:], helper("report-status", out)...)...).Run(); err != nil {
			t.Fatal(err)
		}
		if got := runStatusMask(t, waitFile(t, out), "SigIgn"); got&ignored != ignored {
			t.Fatalf("launcher: SigIgn %#x lacks SIGHUP and SIGINT", got)
		}
	})

	t.Run("tandem", func(t *testing.T) {
		out := inDir(tempDir(t), "status")
		p := startTandem(t, procOptions{prefix: launch}, cmdArgs([]string{"run"}, helper("run-status-wait", out))...)
		runKillGroupOnFailure(t, p, false)
		status := waitFile(t, out)
		if got := runStatusMask(t, status, "SigIgn"); got&ignored != ignored {
			t.Errorf("CMD's SigIgn is %#x: SIGHUP and SIGINT (%#x) are no longer ignored", got, ignored)
		}
		own, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if got := runStatusMask(t, string(own), "SigIgn"); got&ignored != ignored {
			t.Errorf("tandem's SigIgn is %#x: it took over SIGHUP or SIGINT", got)
		}
		// Ignored, these are dropped at once; caught, they would be
		// forwarded before the SIGUSR1 that follows.
		p.signal(syscall.SIGHUP)
		p.signal(syscall.SIGINT)
		p.signal(syscall.SIGUSR1)
		if code := p.wait(); code != 0 {
			t.Fatalf("tandem exited %d, want 0", code)
		}
		for _, l := range p.lines {
			if l.Is("signal-forwarded") && l.Field("received") != "SIGUSR1" {
				t.Errorf("tandem forwarded %s, which it was started ignoring", l.Field("received"))
			}
		}
	})
}
