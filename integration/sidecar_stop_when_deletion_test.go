package integration

import (
	"syscall"
	"testing"
)

// --stop-when deletion (restartPolicy: Always): a done file, even one
// there before the sidecar starts, is a main's end that the kubelet will
// restart, not a reason to stop; once the pod is being deleted (the
// termination signal held by --outlive-main) the done condition stops CMD,
// a requested stop (exit 0).
func TestSidecarStopWhenDeletion(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	scWriteFile(t, rec.done, "")      // the main's last run ended
	main := holdLifeline(t, rec.done) // and the kubelet started it again
	// With --stop-when any the stale file would end the sidecar at once
	// (not-started); here CMD starts, and takes signals as ever.
	p := rec.start("sidecar", "--stop-when", "deletion", "--outlive-main", "1h", "--poll-interval", "1h", "--done-file", rec.done)
	p.signal(syscall.SIGHUP)
	waitLines(t, rec.signals, 2)
	if p.hasEvent("done-seen") || p.hasEvent("not-started") {
		t.Fatal("a done file stopped the sidecar before the pod was being deleted")
	}
	main.terminating()
	p.signal(syscall.SIGTERM)
	p.scWantExit(0, "stopped")
	p.scWantOrder(scHeldMessage, "done-seen", "stop-sent", "cmd-exited")
	rec.wantReceived("SIGHUP, then the one SIGTERM of the stop", "1", "15")
}

// The control: the same stale done file under --stop-when any never lets
// CMD start.
func TestSidecarStopWhenAnyStaleDoneFile(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	scWriteFile(t, done, "")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--outlive-main", "1h", "--done-file", done}, helper("sleep"))...)
	p.scWantExit(0, "stopped")
	p.waitEvent("not-started")
}

// The pod's deletion during a restart backoff opens --stop-when deletion's
// gate as it does while CMD runs: the hold is taken, the done file there
// is the main's end, and the sidecar stops (exit 0) without starting CMD
// again.
func TestSidecarStopWhenDeletionDuringBackoff(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	state, done, out := inDir(dir, "state"), inDir(dir, "done"), inDir(dir, "signals")
	scWriteFile(t, done, "")      // the main's last run ended
	main := holdLifeline(t, done) // and the kubelet started it again
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--stop-when", "deletion", "--restart", "on-failure", "--outlive-main", "1h", "--poll-interval", "1h", "--done-file", done},
		helper("sc-crash-once", state, out))...)
	p.waitEvent("restarting")
	main.terminating()
	p.signal(syscall.SIGTERM) // within the backoff's second
	p.scWantExit(0, "stopped")
	p.scWantOrder("restarting", scHeldMessage, "done-seen", "exiting")
	if n := len(p.scLinesWith("cmd-started")); n != 1 {
		t.Fatalf("CMD started %d times, want 1: the pod's deletion during the backoff ends it", n)
	}
}
