package integration

import "testing"

// Two sidecars in an OnFailure pod (--stop-when success), the first
// listing the second's stopped file among its done files. The second,
// killed outright, writes no stopped file; its lifeline lost means it is
// gone, which counts as stopped whatever --stop-when says (that setting
// is about the main's exit status): once the main is done, the first stops
// instead of waiting for ever.
func TestSidecarStoppedFileLostUnderStopWhenSuccess(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, proxyStopped := inDir(dir, "done"), inDir(dir, "proxy.stopped")
	db := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--name", "db", "--stop-when", "success",
		"--done-file", done, "--done-file", proxyStopped}, helper("sleep"))...)
	db.childPID()
	proxy := startKillableMain(t, procOptions{}, cmdArgs([]string{"sidecar", "--name", "proxy", "--stop-when", "success",
		"--done-file", done, "--stopped-file", proxyStopped}, helper("sleep"))...)
	proxy.waitEvent("cmd-started")
	if attached := db.waitEvent("main-attached"); attached.Field("path") != proxyStopped+".lifeline" {
		t.Fatalf("main-attached %v; want the proxy's stopped file's lifeline", attached)
	}
	killOutright(t, proxy)
	db.waitEvent("main-lost")
	if db.hasEvent("done-seen") {
		t.Fatal("the database stopped before the main was done")
	}
	announceDone(t, done)
	db.scWantExit(0, "stopped")
	db.scWantOrder("main-lost", "done-seen", "stop-sent", "cmd-exited")
}
