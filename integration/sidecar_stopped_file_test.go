package integration

import (
	"os"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// Shutdown order between sidecars: the proxy writes its stopped file once
// its CMD exited after the requested stop; the database lists it among its
// done files, so it stops only after the proxy.
func TestSidecarStoppedFileOrder(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, proxyStopped := inDir(dir, "done"), inDir(dir, "proxy.stopped")
	db := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--name", "db", "--done-file", done,
		"--done-file", proxyStopped}, helper("sleep"))...)
	db.childPID()
	proxy := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--name", "proxy", "--done-file", done,
		"--stopped-file", proxyStopped}, helper("sleep"))...)
	proxy.childPID()
	main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("exit", "0"))...)
	main.scWantExit(0, "exited")
	proxy.scWantExit(0, "stopped")
	db.scWantExit(0, "stopped")
	proxyExit, dbStop := proxy.waitEvent("cmd-exited"), db.waitEvent("stop-sent")
	if gap := logGap(proxyExit, dbStop); gap < 0 {
		t.Fatalf("the database got its stop signal %s before the proxy's CMD exited", -gap)
	}
	if seen := db.waitEvent("done-seen"); seen.Field("path") != proxyStopped {
		t.Fatalf("the database's done-seen %v, want it to end on the proxy's stopped file", seen)
	}
	scWantStatus(t, proxyStopped, "stopped", 0, "", "stopped")
}

// A proxy killed outright leaves no stopped file; its lifeline tells the
// database, which does not wait for ever.
func TestSidecarStoppedFileLifeline(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	proxyStopped := inDir(dir, "proxy.stopped")
	db := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--name", "db", "--done-file", proxyStopped},
		helper("sleep"))...)
	db.childPID()
	proxy := startKillableMain(t, procOptions{}, cmdArgs([]string{"sidecar", "--name", "proxy",
		"--done-file", inDir(dir, "done"), "--stopped-file", proxyStopped}, helper("sleep"))...)
	proxy.waitEvent("cmd-started")
	db.waitEvent("main-attached")
	killOutright(t, proxy)
	wantLost(t, db, proxyStopped)
}

// A done file from another pod (a volume shared by mistake, podman's named
// volumes) carries another host: it is ignored, with a warning naming both.
func TestSidecarIgnoresAnotherPodsDoneFile(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
	p.childPID()
	// Renamed into place, as tandem writes it: a reader never sees half.
	scWriteFile(t, done+".tmp", `{"version":1,"name":"main","event":"done","exitCode":0,"reason":"exited","host":"another-pod","time":"2026-11-30T06:22:52Z"}`+"\n")
	if err := os.Rename(done+".tmp", done); err != nil {
		t.Fatal(err)
	}
	warning := p.waitFor("the other-host warning", func(l kit.Line) bool { return l.Field("file_host") == "another-pod" })
	if warning.Field("host") == "" {
		t.Fatalf("warning %v does not name this pod's host", warning)
	}
	if p.hasEvent("done-seen") {
		t.Fatal("another pod's done file stopped the sidecar")
	}
	// This pod's main, and a bare touch, still count.
	main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("exit", "0"))...)
	main.scWantExit(0, "exited")
	p.scWantExit(0, "stopped")
}
