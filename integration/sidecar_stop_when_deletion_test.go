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
