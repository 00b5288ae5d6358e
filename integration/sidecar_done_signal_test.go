package integration

import (
	"syscall"
	"testing"
)

// The done signal (USR2 unless --done-signal says otherwise) sent to the
// sidecar tandem means the main is done; it is not forwarded to CMD.
func TestSidecarDoneSignal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
		// announce sends tandem the done signal (and what comes first) and
		// checks what happened before tandem's exit.
		announce func(t *testing.T, p *tandemProc, rec *recorder)
		// received is what CMD must have recorded, and why, in words.
		received []string
		why      string
	}{
		{
			name: "default USR2",
			announce: func(t *testing.T, p *tandemProc, _ *recorder) {
				p.signal(syscall.SIGUSR2)
			},
			// tandem forwards before it stops, so a forwarded USR2 would be
			// recorded before the SIGTERM.
			received: []string{"15"}, why: "only SIGTERM (15): the done signal must not be forwarded",
		},
		{
			name: "--done-signal USR1", flags: []string{"--done-signal", "USR1"},
			announce: func(t *testing.T, p *tandemProc, rec *recorder) {
				// USR2 is now an ordinary signal: forwarded, not done.
				p.signal(syscall.SIGUSR2)
				waitLines(t, rec.signals, 2)
				if p.hasEvent("done-seen") {
					t.Fatal("USR2 taken as done although --done-signal is USR1")
				}
				p.signal(syscall.SIGUSR1)
			},
			received: []string{"12", "15"}, why: "USR2 (12) forwarded, then SIGTERM (15)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t)
			p := rec.start(append([]string{"sidecar"}, tc.flags...)...)
			tc.announce(t, p, rec)
			p.scWantExit(0, "stopped")
			if seen := p.waitEvent("done-seen"); seen.Field("source") != "done-signal" {
				t.Fatalf("main is done from %q, want done-signal", seen.Field("source"))
			}
			p.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited")
			rec.wantReceived(tc.why, tc.received...)
		})
	}
}
