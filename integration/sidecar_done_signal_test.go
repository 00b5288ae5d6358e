package integration

import (
	"slices"
	"syscall"
	"testing"
)

// The done signal (USR2 unless --done-signal says otherwise) sent to the
// sidecar tandem means the main is done; it is not forwarded to CMD.
func TestSidecarDoneSignal(t *testing.T) {
	t.Parallel()

	t.Run("default USR2", func(t *testing.T) {
		t.Parallel()
		out := inDir(tempDir(t), "signals")
		p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar"}, helper("record-signals", out, "15"))...)
		waitReadyPID(t, out)
		p.signal(syscall.SIGUSR2)
		p.scWantExit(0, "stopped")
		if seen := p.waitEvent("done-seen"); seen.Field("source") != "done-signal" {
			t.Fatalf("main is done from %q, want done-signal", seen.Field("source"))
		}
		p.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited")
		// tandem forwards before it stops, so a forwarded USR2 would be
		// recorded before the SIGTERM.
		if got := readLines(out); !slices.Equal(got[1:], []string{"15"}) {
			t.Fatalf("CMD received %q, want only SIGTERM (15): the done signal must not be forwarded", got[1:])
		}
	})

	t.Run("--done-signal USR1", func(t *testing.T) {
		t.Parallel()
		out := inDir(tempDir(t), "signals")
		p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-signal", "USR1"},
			helper("record-signals", out, "15"))...)
		waitReadyPID(t, out)
		// USR2 is now an ordinary signal: forwarded, not done.
		p.signal(syscall.SIGUSR2)
		waitLines(t, out, 2)
		if p.hasEvent("done-seen") {
			t.Fatal("USR2 taken as done although --done-signal is USR1")
		}
		p.signal(syscall.SIGUSR1)
		p.scWantExit(0, "stopped")
		if got := readLines(out); !slices.Equal(got[1:], []string{"12", "15"}) {
			t.Fatalf("CMD received %q, want USR2 (12) forwarded, then SIGTERM (15)", got[1:])
		}
	})
}
