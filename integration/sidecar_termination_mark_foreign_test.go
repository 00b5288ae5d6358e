package integration

import (
	"os"
	"syscall"
	"testing"
)

// A termination mark written in another pod (a volume shared by mistake,
// podman's named volumes) carries another host: it is ignored with a
// warning naming both, as a done file of another pod is. A signal to this
// sidecar alone is then forwarded after the short look for a mark of its
// own pod's main, not held for --outlive-main's hour.
func TestTerminationMarkOfAnotherPod(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	holdLifeline(t, rec.done) // this pod's main runs on
	mark := rec.done + ".terminating"
	scWriteFile(t, mark+".tmp", `{"version":1,"name":"main","event":"terminating","signal":"SIGTERM","host":"another-pod","time":"2026-11-30T06:22:52Z"}`+"\n")
	mustDo(t, os.Rename(mark+".tmp", mark))
	sidecar := rec.start("sidecar", "--outlive-main", "1h", "--poll-interval", "1h", "--done-file", rec.done)
	sidecar.waitEvent("main-attached")
	sidecar.signal(syscall.SIGTERM)
	sidecar.scWantExit(0, "exited") // record-signals exits 0 on SIGTERM
	foreign := sidecar.waitEvent("termination-mark-foreign")
	if foreign.Field("level") != "warn" || foreign.Field("path") != mark || foreign.Field("file_host") != "another-pod" || foreign.Field("host") == "" {
		t.Fatalf("warning %v; want one naming the mark, its host and ours", foreign)
	}
	sidecar.scWantOrder("termination-mark-awaited", "signal-alone", "cmd-exited")
	if sidecar.hasEvent(scHeldMessage) {
		t.Error("another pod's mark made the sidecar hold its signal")
	}
	rec.wantReceived("the signal, forwarded", "15")
}
