package integration

import (
	"syscall"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// An image with STOPSIGNAL SIGQUIT (nginx) gets SIGQUIT on pod deletion
// from containerd and CRI-O: with --termination-signal QUIT, --outlive-main
// holds that signal until the done file, then stops CMD. Without the flag
// SIGQUIT is forwarded at once, as before.
func TestSidecarTerminationSignalHeld(t *testing.T) {
	t.Parallel()
	for _, withFlag := range []bool{true, false} {
		rec := newRecorder(t)
		main := holdLifeline(t, rec.done)
		args := []string{"sidecar", "--outlive-main", "1h", "--done-file", rec.done}
		if withFlag {
			args = append(args, "--termination-signal", "QUIT")
		}
		p := rec.start(args...)
		main.terminating()
		p.signal(syscall.SIGQUIT)
		if !withFlag {
			waitLines(t, rec.signals, 2) // forwarded: CMD has it
			if p.hasEvent(scHeldMessage) {
				t.Fatal("SIGQUIT held without --termination-signal QUIT")
			}
			main.finish()
			p.scWantExit(0, "stopped")
			continue
		}
		if held := p.waitEvent(scHeldMessage); held.Field("signal") != "SIGQUIT" {
			t.Fatalf("held %v, want SIGQUIT", held)
		}
		main.finish()
		p.scWantExit(0, "stopped")
		rec.wantReceived("only the stop signal (SIGTERM): the held SIGQUIT never reached it", "15")
	}
}

// While a requested stop is under way, the container's termination signal
// is the same request: logged, not forwarded (pgbouncer's fast exit on
// SIGTERM during its safe SIGINT shutdown). Other signals still pass.
func TestSidecarTerminationSignalDuringRequestedStop(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	// record-signals exits on SIGHUP (1): the stop's INT is recorded, then
	// the test's TERM (which must not arrive) and HUP (which must).
	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--stop-signal", "INT", "--done-file", rec.done},
		helper("record-signals", rec.signals, "1"))...)
	waitReadyPID(t, rec.signals)
	scWriteFile(t, rec.done, "")
	p.waitEvent("stop-sent")
	waitLines(t, rec.signals, 2) // CMD got the INT
	p.signal(syscall.SIGTERM)
	p.waitEvent("signal-absorbed")
	p.signal(syscall.SIGHUP)
	p.scWantExit(0, "stopped")
	rec.wantReceived("SIGINT then SIGHUP and never the pod's SIGTERM", "2", "1")
}

// --stop-delay: the stop signal waits D after the done file, so a shipper
// drains; a second done source during the delay does not shorten it.
func TestSidecarStopDelay(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	p := rec.start("sidecar", "--stop-delay", "300ms", "--done-file", rec.done)
	scWriteFile(t, rec.done, "")
	delayed := p.waitEvent("stop-delayed")
	p.signal(syscall.SIGUSR2) // the done signal too: no shortcut
	p.signal(syscall.SIGTERM) // nor the pod's termination signal
	sent := p.waitEvent("stop-sent")
	p.scWantExit(0, "stopped")
	rec.wantReceived("one SIGTERM: the stop's", "15")
	t.Logf("stop signal sent %s after the delay began (stop-delay 300ms)", logGap(delayed, sent))
}

// logGap is the time between two of tandem's log lines, by their stamps.
func logGap(from, to kit.Line) time.Duration {
	if from.At.IsZero() || to.At.IsZero() {
		return -1
	}
	return to.At.Sub(from.At)
}
