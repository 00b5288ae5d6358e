package integration

import (
	"syscall"
	"testing"
)

// The done signal (USR2 unless --done-signal says otherwise) sent to the
// sidecar tandem means the main is done; it is not forwarded to CMD.
func TestSidecarDoneSignal(t *testing.T) {
	t.Parallel()

	t.Run("default USR2", func(t *testing.T) {
		t.Parallel()
		rec := newRecorder(t)
		p := rec.start("sidecar")
		p.signal(syscall.SIGUSR2)
		p.scWantExit(0, "stopped")
		if seen := p.waitEvent("done-seen"); seen.Field("source") != "done-signal" {
			t.Fatalf("main is done from %q, want done-signal", seen.Field("source"))
		}
		p.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited")
		// tandem forwards before it stops, so a forwarded USR2 would be
		// recorded before the SIGTERM.
		rec.wantReceived("only SIGTERM (15): the done signal must not be forwarded", "15")
	})

	t.Run("--done-signal USR1", func(t *testing.T) {
		t.Parallel()
		rec := newRecorder(t)
		p := rec.start("sidecar", "--done-signal", "USR1")
		// USR2 is now an ordinary signal: forwarded, not done.
		p.signal(syscall.SIGUSR2)
		waitLines(t, rec.signals, 2)
		if p.hasEvent("done-seen") {
			t.Fatal("USR2 taken as done although --done-signal is USR1")
		}
		p.signal(syscall.SIGUSR1)
		p.scWantExit(0, "stopped")
		rec.wantReceived("USR2 (12) forwarded, then SIGTERM (15)", "12", "15")
	})
}
