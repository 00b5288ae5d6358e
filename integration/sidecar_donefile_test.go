package integration

import (
	"os"
	"path/filepath"
	"testing"
)

// The sidecar sees its done file however it arrives. --poll-interval is an
// hour in every case where the file appears after start, so only the
// inotify watch can have noticed it: a broken watch hangs and fails.

func TestSidecarDoneFileBeforeStart(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, marker := inDir(dir, "done"), inDir(dir, "marker")
	scWriteFile(t, done, "") // a bare touch counts

	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("mark", marker))...)
	p.scWantExit(0, "stopped")
	if p.hasEvent("cmd-started") {
		t.Fatal("CMD was started although the main was already done")
	}
	p.waitEvent("not-started")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("CMD ran although the main was already done")
	}
}

func TestSidecarDoneFileAfterStart(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	p := rec.start("sidecar", "--poll-interval", "1h", "--done-file", rec.done)
	scWriteFile(t, rec.done, "")

	p.scWantExit(0, "stopped")
	seen := p.waitEvent("done-seen")
	if seen.Field("source") != "done-file" || seen.Field("path") != rec.done {
		t.Fatalf("main is done: source %q path %q, want done-file %s", seen.Field("source"), seen.Field("path"), rec.done)
	}
	p.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited", "exiting")
	rec.wantReceived("only SIGTERM (15)", "15")
}

// A writer that renames a complete file into place (as tandem main does)
// produces IN_MOVED_TO, not IN_CREATE, for the done file's name.
func TestSidecarDoneFileRenamedIntoPlace(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	p := rec.start("sidecar", "--poll-interval", "1h", "--done-file", rec.done)
	tmp := inDir(rec.dir, ".done.partial")
	scWriteFile(t, tmp, `{"version":1,"name":"job","event":"done","exitCode":0,"signal":"","reason":"exited","time":"2026-11-30T06:22:52.258974522Z"}`+"\n")
	if err := os.Rename(tmp, rec.done); err != nil {
		t.Fatal(err)
	}

	p.scWantExit(0, "stopped")
	seen := p.waitEvent("done-seen")
	if seen.Field("main") != "job" || seen.Num("main_exit_code") != 0 {
		t.Fatalf("main is done: main %q exit %d, want the renamed file's job / 0", seen.Field("main"), seen.Num("main_exit_code"))
	}
}

// The done file's directory (two levels of it) does not exist when the
// sidecar starts: tandem watches the nearest existing ancestor, then each
// directory as it is created. The test waits (through /proc) for each watch
// before creating the next level, so every step must be seen by inotify.
func TestSidecarDoneFileInDirectoryCreatedLater(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	outer := inDir(rec.dir, "shared")
	inner := filepath.Join(outer, "run")
	done := filepath.Join(inner, "done")
	p := rec.start("sidecar", "--poll-interval", "1h", "--done-file", done)
	pid := p.cmd.Process.Pid
	scWaitWatched(t, pid, rec.dir)

	if err := os.Mkdir(outer, 0o755); err != nil {
		t.Fatal(err)
	}
	scWaitWatched(t, pid, outer)
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	scWaitWatched(t, pid, inner)
	if p.hasEvent("done-seen") {
		t.Fatal("done before the done file exists")
	}
	scWriteFile(t, done, "")

	p.scWantExit(0, "stopped")
	if seen := p.waitEvent("done-seen"); seen.Field("path") != done {
		t.Fatalf("main is done: path %q, want %s", seen.Field("path"), done)
	}
}

// Several --done-file: every one is needed. One of two existing at start is
// not enough to skip CMD; the second, in another directory, ends it.
func TestSidecarDoneFileSeveralAllNeeded(t *testing.T) {
	t.Parallel()
	rec, doneB := newRecorder(t), inDir(tempDir(t), "done")
	scWriteFile(t, rec.done, "")
	// Started means CMD runs: one done file of two did not count as done.
	p := rec.start("sidecar", "--poll-interval", "1h", "--done-file", rec.done, "--done-file", doneB)
	if p.hasEvent("done-seen") {
		t.Fatal("done with one of two done files")
	}
	scWriteFile(t, doneB, "")

	p.scWantExit(0, "stopped")
	p.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited")
}
