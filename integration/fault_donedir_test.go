package integration

import (
	"os"
	"testing"
)

// The done directory is deleted and recreated while the sidecar runs (a
// volume cleaned by a script, a main that rm -rf's its output): the done
// file written into the new directory is still seen. The poll safety net is
// set to an hour, so what is proved is that the inotify watch follows the
// new directory, not that a poll eventually finds the file.
func TestFaultDoneDirRecreated(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	shared := inDir(dir, "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	done, signals := inDir(shared, "done"), inDir(dir, "signals")
	p := startDoneDirSidecar(t, done, signals)

	// Several rounds, without waiting for tandem in between: whatever order
	// the events reach it in, it must end up watching the last directory.
	for range 5 {
		if err := os.RemoveAll(shared); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(shared, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	announceDone(t, done, "--exit-code", "0", "--name", "job")

	seen := p.waitEvent("done-seen")
	if seen.Field("source") != "done-file" || seen.Field("path") != done || seen.Field("main") != "job" {
		t.Errorf("done seen as %v; want source done-file, path %s, main job", seen, done)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("sidecar exited %d, want 0 (stopped because the main was done)", code)
	}
	if lines := readLines(signals); lines[len(lines)-1] != "15" {
		t.Errorf("CMD recorded %q; want it stopped by SIGTERM (15)", lines)
	}
}

// The directory disappears and comes back only after a while, its parent
// being the only thing left to watch: still seen.
func TestFaultDoneDirDeletedThenCreatedLater(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	shared := inDir(dir, "a")
	nested := inDir(shared, "b")
	if err := os.MkdirAll(nested, 0o777); err != nil {
		t.Fatal(err)
	}
	done := inDir(nested, "done")
	p := startDoneDirSidecar(t, done, inDir(dir, "signals"))

	if err := os.RemoveAll(shared); err != nil {
		t.Fatal(err)
	}
	// tandem done creates the missing directories itself (0755).
	announceDone(t, done)
	p.waitEvent("done-seen")
	if code := p.wait(); code != 0 {
		t.Fatalf("sidecar exited %d, want 0", code)
	}
}

// startDoneDirSidecar starts a sidecar over done, inotify its only way to
// see it (the poll is an hour away), CMD recording its signals to signals.
func startDoneDirSidecar(t *testing.T, done, signals string) *tandemProc {
	t.Helper()
	p := startTandem(t, procOptions{},
		cmdArgs([]string{"sidecar", "--done-file", done, "--poll-interval", "1h", "--grace", "30s"},
			helper("record-signals", signals, "15"))...)
	killCMDOnCleanup(t, signals)
	p.waitEvent("cmd-started") // the watch is in place before CMD starts
	return p
}
