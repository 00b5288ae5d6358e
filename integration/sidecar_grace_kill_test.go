package integration

import (
	"testing"
)

// A sidecar CMD that ignores the stop signal is killed after --grace; the
// stop was requested, so tandem still exits 0, with a warning.
func TestSidecarGraceKillsStubbornCMD(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, out := inDir(dir, "done"), inDir(dir, "ready")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--grace", "200ms", "--poll-interval", "1h", "--done-file", done},
		helper("ignore-term", out))...)
	pid := waitReadyPID(t, out)
	scWriteFile(t, done, "")

	p.scWantExit(0, "stopped")
	p.scWantOrder("done-seen", "stop-sent", "kill-sent",
		"cmd-exited", "stop-forced", "exiting")
	if exited := p.waitEvent("cmd-exited"); exited.Field("signal") != "SIGKILL" {
		t.Fatalf("CMD exited: %v, want killed by SIGKILL", exited)
	}
	for _, msg := range []string{"kill-sent",
		"stop-forced"} {
		if l := p.waitEvent(msg); l.Field("level") != "warn" {
			t.Fatalf("%q logged at level %q, want warn", msg, l.Field("level"))
		}
	}
	if !processGone(pid) {
		t.Fatal("CMD still exists after tandem exited")
	}
}
