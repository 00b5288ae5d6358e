package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// safetyBound fails a test that hangs; no test synchronises on it.
const safetyBound = 30 * time.Second

// A poll interval no test can reach: what these tests see came by inotify.
const noPoll = time.Hour

func newTestWatcher(t *testing.T, cfg doneWatchConfig) *doneWatcher {
	t.Helper()
	w, err := newDoneWatcher(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)
	return w
}

// runWatcher runs w until the test ends and returns where it reports.
func runWatcher(t *testing.T, w *doneWatcher) <-chan doneEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan doneEvent, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		w.Run(ctx, out)
	}()
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return out
}

func awaitDone(t *testing.T, out <-chan doneEvent) doneEvent {
	t.Helper()
	select {
	case ev := <-out:
		return ev
	case <-time.After(safetyBound):
		t.Fatalf("no done event within %s", safetyBound)
		return doneEvent{}
	}
}

func writeDone(t *testing.T, path string, f statusfile.File) {
	t.Helper()
	f.Event = statusfile.EventDone
	if err := statusfile.Write(path, f); err != nil {
		t.Fatal(err)
	}
}

func TestDoneWatcherCheck(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	w := newTestWatcher(t, doneWatchConfig{paths: []string{a, b}, poll: noPoll, host: "this-pod"})
	if _, done := w.Check(); done {
		t.Fatal("done with no file")
	}
	writeDone(t, a, statusfile.File{Host: "this-pod"})
	if _, done := w.Check(); done {
		t.Fatal("done with one of two files")
	}
	writeDone(t, b, statusfile.File{Host: "this-pod", ExitCode: 3})
	ev, done := w.Check()
	if !done || ev.Source != sourceDoneFile || ev.Path != b || ev.Status == nil || ev.Status.ExitCode != 3 {
		t.Fatalf("both files: done %v, %+v; want done-file, the last path and its status", done, ev)
	}
	// A file written in another pod (a volume shared by mistake) is not done.
	writeDone(t, b, statusfile.File{Host: "other-pod"})
	if _, done := w.Check(); done {
		t.Error("a done file from another pod counted")
	}
	// A bare touch counts, its status unknown.
	if err := os.WriteFile(b, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if ev, done := w.Check(); !done || ev.Status != nil {
		t.Errorf("an empty done file: done %v, status %+v; want done, status unknown", done, ev.Status)
	}
	if _, done := newTestWatcher(t, doneWatchConfig{poll: noPoll}).Check(); done {
		t.Error("done with no done file configured")
	}
}

func TestDoneWatcherStopWhenSuccess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	w := newTestWatcher(t, doneWatchConfig{paths: []string{path}, stopWhen: StopWhenSuccess, poll: noPoll})
	writeDone(t, path, statusfile.File{ExitCode: 1})
	if _, done := w.Check(); done {
		t.Fatal("--stop-when success: a failed main counted as done")
	}
	writeDone(t, path, statusfile.File{ExitCode: 0})
	if _, done := w.Check(); !done {
		t.Fatal("--stop-when success: the replaced, successful done file did not count")
	}
}

// TestDoneWatcherSeesTheFile: inotify reports the file (the poll interval is
// an hour), also in a directory that did not exist when watching began.
func TestDoneWatcherSeesTheFile(t *testing.T) {
	for _, sub := range []string{"", "later/created"} {
		t.Run("dir "+sub, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), sub)
			path := filepath.Join(dir, "done")
			w := newTestWatcher(t, doneWatchConfig{paths: []string{path}, poll: noPoll})
			if w.fsw == nil {
				t.Skip("inotify unavailable here")
			}
			out := runWatcher(t, w)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			writeDone(t, path, statusfile.File{ExitCode: 2})
			ev := awaitDone(t, out)
			if ev.Source != sourceDoneFile || ev.Path != path || ev.Status.ExitCode != 2 || ev.SeenAt.IsZero() {
				t.Errorf("event %+v, want the done file with exit code 2", ev)
			}
		})
	}
}

// TestDoneWatcherPollsWithoutInotify: with no inotify, the poll finds it.
func TestDoneWatcherPollsWithoutInotify(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	w := newTestWatcher(t, doneWatchConfig{paths: []string{path}, poll: time.Millisecond})
	w.close()
	w.fsw = nil
	out := runWatcher(t, w)
	writeDone(t, path, statusfile.File{})
	if ev := awaitDone(t, out); ev.Source != sourceDoneFile || ev.Path != path {
		t.Errorf("event %+v, want the done file", ev)
	}
}

func TestDoneWatcherMainStartTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	w := newTestWatcher(t, doneWatchConfig{paths: []string{path}, poll: noPoll, mainStartTimeout: time.Millisecond})
	if ev := awaitDone(t, runWatcher(t, w)); ev.Source != sourceNoMain {
		t.Errorf("event %+v, want no-main", ev)
	}
}

// TestDoneWatcherStopsWithItsContext: Run returns when its run ends, with
// nothing sent.
func TestDoneWatcherStopsWithItsContext(t *testing.T) {
	w := newTestWatcher(t, doneWatchConfig{paths: []string{filepath.Join(t.TempDir(), "done")}, poll: noPoll})
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan doneEvent) // unbuffered: a send would block Run
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		w.Run(ctx, out)
	}()
	cancel()
	select {
	case <-finished:
	case <-time.After(safetyBound):
		t.Fatal("Run did not return after its context ended")
	}
}
