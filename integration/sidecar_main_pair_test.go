package integration

import (
	"testing"
)

// The acceptance check, played by two tandems sharing a directory
// as two containers share an emptyDir: the main's short CMD ends, its done
// file appears, and the sidecar's long-running CMD is stopped because of it;
// both containers exit 0.
func TestSidecarAndMainAcceptance(t *testing.T) {
	t.Parallel()
	shared := tempDir(t)
	done := inDir(shared, "done")

	// The sidecar starts first, as a native sidecar does.
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
	sidecarCMD := sidecar.childPID()
	mainTandem := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("exit", "0"))...)

	mainTandem.scWantExit(0, "exited")
	sidecar.scWantExit(0, "stopped")
	mainTandem.scWantOrder("cmd-started", "cmd-exited", "done-written", "exiting")
	scWantStatus(t, done, "done", 0, "", "exited")

	// The sidecar stopped its CMD because of the main's done file, not on its
	// own: the stop follows the done event, and CMD died of the stop signal.
	sidecar.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited", "exiting")
	seen := sidecar.waitEvent("done-seen")
	if seen.Field("source") != "done-file" || seen.Field("path") != done || seen.Num("main_exit_code") != 0 {
		t.Fatalf("sidecar's main is done: %v", seen)
	}
	if exited := sidecar.waitEvent("cmd-exited"); exited.Field("signal") != "SIGTERM" || exited.Num("pid") != sidecarCMD {
		t.Fatalf("sidecar's CMD exited: %v, want pid %d killed by the stop signal", exited, sidecarCMD)
	}
	if !processGone(sidecarCMD) {
		t.Fatal("the sidecar's CMD still exists after the sidecar exited")
	}
	t.Logf("sidecar saw the done file %.3fms after its time stamp", seen.Fields["after_file_time_ms"])
}

// The same two containers started in parallel, with the real pod's guard
// against the race: the sidecar publishes readiness into the shared
// directory and the main waits for it (--wait-for), so the sidecar's CMD
// always runs before the main can be done.
func TestSidecarAndMainStartedTogether(t *testing.T) {
	t.Parallel()
	shared := tempDir(t)
	done, ready := inDir(shared, "done"), inDir(shared, "sidecar-ready")

	mainTandem := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--wait-for", "file:" + ready,
		"--wait-interval", "10ms", "--done-file", done}, helper("exit", "0"))...)
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--ready-file", ready, "--done-file", done},
		helper("sleep"))...)

	mainTandem.scWantExit(0, "exited")
	sidecar.scWantExit(0, "stopped")
	mainTandem.scWantOrder("waiting", "condition-holds", "cmd-started", "cmd-exited", "done-written")
	sidecar.scWantOrder("cmd-started", "ready-written", "done-seen", "stop-sent", "cmd-exited")
	if exited := sidecar.waitEvent("cmd-exited"); exited.Field("signal") != "SIGTERM" {
		t.Fatalf("sidecar's CMD exited: %v, want killed by the stop signal", exited)
	}
}
