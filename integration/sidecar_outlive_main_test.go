package integration

import (
	"syscall"
	"testing"
)

const scHeldMessage = "signal-held"

// --outlive-main, pod deletion: SIGTERM reaches every container at once; the
// sidecar holds it so the main can finish with its proxy, and stops CMD when
// the main is done, a requested stop (exit 0).
func TestSidecarOutliveMainHoldsSIGTERMUntilDone(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	main := holdLifeline(t, rec.done)
	p := rec.start("sidecar", "--outlive-main", "1h", "--poll-interval", "1h", "--done-file", rec.done)
	main.terminating()
	p.signal(syscall.SIGTERM)
	p.waitEvent(scHeldMessage)
	if got := rec.received(); len(got) != 0 {
		t.Fatalf("CMD received %q while SIGTERM was held", got)
	}
	if processGone(rec.pid) {
		t.Fatal("CMD is gone while SIGTERM was held")
	}
	// Other signals still pass while SIGTERM is held.
	p.signal(syscall.SIGHUP)
	waitLines(t, rec.signals, 2)

	main.finish()
	p.scWantExit(0, "stopped")
	p.scWantOrder(scHeldMessage, "done-seen", "stop-sent", "cmd-exited")
	rec.wantReceived("SIGHUP then the one SIGTERM of the stop", "1", "15")
}

// When --outlive-main passes before the main is done, SIGTERM is forwarded
// and tandem exits as run would: 143 for a CMD that dies of it.
func TestSidecarOutliveMainExpires(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	holdLifeline(t, done).terminating()
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--outlive-main", "200ms", "--done-file", done}, helper("sleep"))...)
	p.childPID()
	p.signal(syscall.SIGTERM)
	p.scWantExit(143, "signaled")
	p.scWantOrder(scHeldMessage, "signal-released", "cmd-exited")
	if p.hasEvent("done-seen") || p.hasEvent("stop-sent") {
		t.Fatal("an expired outlive-main was treated as a requested stop")
	}
	if exited := p.waitEvent("cmd-exited"); exited.Field("signal") != "SIGTERM" {
		t.Fatalf("CMD exited: %v, want killed by SIGTERM", exited)
	}
}

// Without --outlive-main, SIGTERM is forwarded at once (the control case
// that makes the hold above meaningful).
func TestSidecarOutliveMainOffForwardsSIGTERM(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
	p.childPID()
	p.signal(syscall.SIGTERM)
	p.scWantExit(143, "signaled")
	if p.hasEvent(scHeldMessage) {
		t.Fatal("SIGTERM held without --outlive-main")
	}
}

// A main that never started (a bad image, a wrong command) holds no
// lifeline: there is nothing to outlive, and the termination signal is
// forwarded at once, so deleting the pod takes seconds, not its grace.
func TestSidecarOutliveMainWithoutMainForwardsAtOnce(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--outlive-main", "1h", "--done-file", done}, helper("sleep"))...)
	p.childPID()
	p.signal(syscall.SIGTERM)
	p.scWantExit(143, "signaled")
	if p.hasEvent(scHeldMessage) {
		t.Fatal("the termination signal was held with no main to outlive")
	}
}
