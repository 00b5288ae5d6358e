package integration

import (
	"slices"
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

// A native sidecar of a pod that restarts its mains (restartPolicy:
// Always) runs under --stop-when deletion with no --outlive-main: the
// kubelet signals it only once the mains have ended on the pod's
// deletion. Their termination mark and done file make its signal the
// requested stop: exit 0, though the program ends a SIGTERM with 143.
func TestSidecarStopWhenDeletionAfterMains(t *testing.T) {
	t.Parallel()
	main, p, out := startNativeAlwaysSidecar(t)
	main.terminating()
	main.finish()
	p.signal(syscall.SIGTERM)
	p.scWantExit(0, "stopped")
	p.scWantOrder("done-seen", "stop-sent", "cmd-exited")
	if got := readLines(out)[1:]; !slices.Equal(got, []string{"15"}) {
		t.Fatalf("CMD received %q, want the one SIGTERM of the stop", got)
	}
}

// The control: the same signal with no termination mark (the kubelet
// restarting the sidecar alone, the main's last run ended): the program's
// own code stands, so the kubelet's restart and its count stay true.
func TestSidecarStopWhenDeletionSignalAloneKeepsCode(t *testing.T) {
	t.Parallel()
	main, p, _ := startNativeAlwaysSidecar(t)
	main.finish()
	p.signal(syscall.SIGTERM)
	if got := p.wait(); got != 143 {
		t.Fatalf("tandem exit code %d, want the program's 143", got)
	}
	if p.hasEvent("done-seen") {
		t.Fatal("a main's end with no termination mark was taken for the pod's deletion")
	}
}

// The pod's deletion reaching such a sidecar during a restart backoff
// ends it as a requested stop too, without starting CMD again.
func TestSidecarStopWhenDeletionAfterMainsDuringBackoff(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	state, done, out := inDir(dir, "state"), inDir(dir, "done"), inDir(dir, "signals")
	main := holdLifeline(t, done)
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--stop-when", "deletion", "--restart", "on-failure", "--poll-interval", "1h", "--done-file", done},
		helper("sc-crash-once", state, out))...)
	p.waitEvent("restarting")
	main.terminating()
	main.finish()
	p.signal(syscall.SIGTERM) // within the backoff's second
	p.scWantExit(0, "stopped")
	p.scWantOrder("restarting", "done-seen", "exiting")
	if n := len(p.scLinesWith("cmd-started")); n != 1 {
		t.Fatalf("CMD started %d times, want 1: the pod's deletion during the backoff ends it", n)
	}
}

// startNativeAlwaysSidecar starts a sidecar as inject writes a native one
// of a restartPolicy: Always pod (--stop-when deletion, no --outlive-main),
// its CMD ending a SIGTERM with 143, and returns once CMD runs, with the
// main and the file of what CMD received.
func startNativeAlwaysSidecar(t *testing.T) (*runningMain, *tandemProc, string) {
	t.Helper()
	dir := tempDir(t)
	done, out := inDir(dir, "done"), inDir(dir, "signals")
	main := holdLifeline(t, done)
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--stop-when", "deletion", "--poll-interval", "1h", "--done-file", done},
		helper("record-signals", out, "15", "143"))...)
	waitReadyPID(t, out)
	return main, p, out
}
