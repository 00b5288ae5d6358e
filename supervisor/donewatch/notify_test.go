package donewatch

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// The done file's directory is deleted, created again, and the file
// written there before the watcher's new watch on it is in place (the
// hook runs between the event that made the watcher look and the watch
// being added): no event will ever tell of that file, so the watcher must
// read the files after adding the watch. The poll is an hour away.
func TestDoneWatcherFileWrittenBeforeTheNewWatch(t *testing.T) {
	dir := t.TempDir()
	way, nested := filepath.Join(dir, "a"), filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	done := filepath.Join(nested, "done")
	w, out := watchFor(t, Config{Paths: []string{done}})
	if _, ok := w.Check(); ok || w.fsw == nil {
		t.Fatal("want not done, the directory watched")
	}
	var armed, written atomic.Bool
	w.beforeWatch = func(d string) {
		if _, err := os.Stat(d); d == nested && err == nil && armed.Load() && !written.Swap(true) {
			if err := statusfile.Write(done, statusfile.File{Event: "done", Name: "job"}); err != nil {
				t.Error(err) // on the watcher's goroutine: no Fatal
			}
		}
	}
	runWatcher(t, w, out)
	if err := os.RemoveAll(way); err != nil {
		t.Fatal(err)
	}
	armed.Store(true) // from now on, nested is the new directory
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	ev := waitDone(t, out)
	if !written.Load() || ev.Source != SourceDoneFile || ev.Path != done || ev.Status == nil || ev.Status.Name != "job" {
		t.Fatalf("event %+v (file written by the hook: %v); want the done file", ev, written.Load())
	}
}

// A directory on the way created while the watcher walks up to the
// nearest one that exists (after it found it missing, before the watch
// above it was added) raised no event anywhere: the walk comes down again
// and watches it, so the file written there afterwards is seen. This is
// how `tandem done`, creating the directories it writes into, could go
// unseen by a sidecar whose poll was an hour away.
func TestDoneWatcherDirCreatedDuringTheWalk(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "a", "b")
	done := filepath.Join(nested, "done")
	w, out := watchFor(t, Config{Paths: []string{done}})
	w.beforeWatch = func(d string) {
		if d == dir {
			if err := os.MkdirAll(nested, 0o755); err != nil {
				t.Error(err)
			}
		}
	}
	if _, ok := w.Check(); ok {
		t.Fatal("done without a file")
	}
	if watched := w.fsw.WatchList(); !slices.Contains(watched, nested) {
		t.Fatalf("watching %q; want %s, created during the walk", watched, nested)
	}
	w.beforeWatch = nil
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done"})
	if ev := waitDone(t, out); ev.Source != SourceDoneFile || ev.Path != done {
		t.Fatalf("event %+v, want the done file", ev)
	}
}

// The main puts its lifeline in place after the watcher looked for it and
// before the watch on its directory is added (the hook runs there): no
// event will tell of it, so the watcher must look for lifelines again
// once the watch is in place. Else the sidecar counts no main attached
// until its next poll, and --main-start-timeout can stop it while its
// main waits to start.
func TestDoneWatcherLifelineHeldBeforeTheWatch(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	w, _ := watchFor(t, Config{Paths: []string{done}})
	var held *lifeline.Holder
	w.beforeWatch = func(string) {
		if held != nil {
			return
		}
		var err error
		if held, err = lifeline.Hold(lifeline.Of(done), statusfile.Hostname()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(held.Release)
	}
	if _, ok := w.Check(); ok {
		t.Fatal("done without a done file")
	}
	if held == nil || !w.allAttached() || w.fsw != nil {
		t.Fatalf("lifeline held in the gap: %v; attached: %v, inotify kept: %v; want attached, no watch", held != nil, w.allAttached(), w.fsw != nil)
	}
}
