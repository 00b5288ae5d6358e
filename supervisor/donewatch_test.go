package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

func watchFor(t *testing.T, cfg doneWatchConfig) (*doneWatcher, chan doneEvent) {
	t.Helper()
	if cfg.poll == 0 {
		cfg.poll = time.Hour // inotify alone must see it
	}
	w, err := newDoneWatcher(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return w, make(chan doneEvent, 1)
}

// runWatcher starts Run; Check must not be called after (Run owns w).
func runWatcher(t *testing.T, w *doneWatcher, out chan doneEvent) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go w.Run(ctx, out)
}

func waitDone(t *testing.T, out chan doneEvent) doneEvent {
	t.Helper()
	select {
	case ev := <-out:
		return ev
	case <-time.After(waitBound):
		t.Fatal("done condition not seen")
	}
	return doneEvent{}
}

func writeDone(t *testing.T, path string, f statusfile.File) {
	t.Helper()
	if err := statusfile.Write(path, f); err != nil {
		t.Fatal(err)
	}
}

// Every file must exist; one in a directory created later is seen too.
func TestDoneWatcherEveryFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.done"), filepath.Join(dir, "later", "b.done")
	w, out := watchFor(t, doneWatchConfig{paths: []string{a, b}, host: "pod-1"})
	writeDone(t, a, statusfile.File{Event: "done", Host: "pod-1"})
	if _, done := w.Check(); done {
		t.Fatal("done with one file of two")
	}
	runWatcher(t, w, out)
	writeDone(t, b, statusfile.File{Event: "done", Name: "b", ExitCode: 2, Host: "pod-1"})
	ev := waitDone(t, out)
	if ev.Source != sourceDoneFile || ev.Path != b || ev.Status == nil || ev.Status.ExitCode != 2 {
		t.Fatalf("event %+v", ev)
	}
}

// A bare touch counts; a file from another pod (its host differs) does not.
func TestDoneWatcherHost(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	w, out := watchFor(t, doneWatchConfig{paths: []string{done}, host: "pod-1"})
	writeDone(t, done, statusfile.File{Event: "done", Host: "pod-2"})
	if _, ok := w.Check(); ok {
		t.Fatal("another pod's done file counted")
	}
	runWatcher(t, w, out)
	if err := os.WriteFile(done, nil, 0o644); err != nil { // a touch: no host
		t.Fatal(err)
	}
	if ev := waitDone(t, out); ev.Status != nil {
		t.Fatalf("a touch parsed as %+v", ev.Status)
	}
}

// --stop-when success ignores a failed main until the file is replaced.
func TestDoneWatcherStopWhenSuccess(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 1})
	w, out := watchFor(t, doneWatchConfig{paths: []string{done}, stopWhen: StopWhenSuccess})
	if _, ok := w.Check(); ok {
		t.Fatal("a failed main counted")
	}
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 0})
	if ev := waitDone(t, out); ev.Status.ExitCode != 0 {
		t.Fatalf("event %+v", ev)
	}
}

// Where inotify sees nothing, the poll still finds the file.
func TestDoneWatcherPolls(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	w, err := newDoneWatcher(doneWatchConfig{paths: []string{done}, poll: 10 * time.Millisecond}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	w.stopWatching()
	w.noNotify = true // as when inotify is unavailable
	out := make(chan doneEvent, 1)
	go w.Run(context.Background(), out)
	writeDone(t, done, statusfile.File{Event: "done"})
	waitDone(t, out)
}

// --main-start-timeout: nothing done, no main attached: stop as if done.
func TestDoneWatcherMainStartTimeout(t *testing.T) {
	w, out := watchFor(t, doneWatchConfig{mainStartTimeout: 20 * time.Millisecond})
	runWatcher(t, w, out)
	if ev := waitDone(t, out); ev.Source != sourceNoMain {
		t.Fatalf("event %+v, want no-main", ev)
	}
}

// While its main is attached the watcher holds no inotify watch; the
// lifeline's release with the done file in place is the normal end.
func TestDoneWatcherLifelineNormalEnd(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	h, err := lifeline.Hold(lifeline.Of(done), statusfile.Hostname())
	if err != nil {
		t.Fatal(err)
	}
	w, out := watchFor(t, doneWatchConfig{paths: []string{done}})
	if _, ok := w.Check(); ok || w.fsw != nil {
		t.Fatalf("attached main: done %v, inotify %v; want not done, no watch", ok, w.fsw != nil)
	}
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 0})
	h.Release()
	if ev := waitDone(t, out); ev.Source != sourceDoneFile || ev.Status == nil {
		t.Fatalf("event %+v, want the done file", ev)
	}
}

// killableHolder holds a lifeline as tandem main does; kill lets go as a
// main killed outright does (the FIFO stays, with no holder).
func killableHolder(t *testing.T, path string) (kill func()) {
	t.Helper()
	tmp := path + ".tmp"
	if err := unix.Mkfifo(tmp, 0o666); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(tmp, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return func() { unix.Close(fd) }
}

// A holder gone without the done file is a lost main, whether the sidecar
// was there first or came later.
func TestDoneWatcherLost(t *testing.T) {
	for _, late := range []bool{false, true} {
		done := filepath.Join(t.TempDir(), "done")
		kill := killableHolder(t, lifeline.Of(done))
		if late {
			kill()
		}
		w, out := watchFor(t, doneWatchConfig{paths: []string{done}})
		ev, ok := w.Check()
		if late {
			if !ok || ev.Source != sourceLost {
				t.Fatalf("late sidecar: %+v %v, want lost at once", ev, ok)
			}
			continue
		}
		runWatcher(t, w, out)
		kill()
		if ev := waitDone(t, out); ev.Source != sourceLost || ev.Path != done {
			t.Fatalf("event %+v, want lost", ev)
		}
	}
}

// --stop-when success: a lost main is a failed one; the next main attaches
// and its success ends it.
func TestDoneWatcherLostThenRetried(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	killableHolder(t, lifeline.Of(done))()
	w, out := watchFor(t, doneWatchConfig{paths: []string{done}, stopWhen: StopWhenSuccess})
	if _, ok := w.Check(); ok {
		t.Fatal("a lost main counted under --stop-when success")
	}
	runWatcher(t, w, out)
	second, err := lifeline.Hold(lifeline.Of(done), statusfile.Hostname())
	if err != nil {
		t.Fatal(err)
	}
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 0})
	second.Release()
	if ev := waitDone(t, out); ev.Source != sourceDoneFile || ev.Status == nil || ev.Status.ExitCode != 0 {
		t.Fatalf("event %+v, want the retried main's success", ev)
	}
}

// Something else at the lifeline's path: the done file alone, never "lost".
func TestDoneWatcherLifelineUnusable(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	if err := os.Mkdir(lifeline.Of(done), 0o755); err != nil {
		t.Fatal(err)
	}
	w, out := watchFor(t, doneWatchConfig{paths: []string{done}})
	if _, ok := w.Check(); ok || w.fsw == nil {
		t.Fatal("want not done, and the done file watched")
	}
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done"})
	if ev := waitDone(t, out); ev.Source != sourceDoneFile {
		t.Fatalf("event %+v", ev)
	}
}

// A lifeline held in another pod (a shared volume) is not attached to: the
// watcher keeps watching for its own main, and a release there is no loss.
func TestDoneWatcherForeignLifeline(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	other, err := lifeline.Hold(lifeline.Of(done), "another-pod")
	if err != nil {
		t.Fatal(err)
	}
	w, out := watchFor(t, doneWatchConfig{paths: []string{done}, host: "this-pod"})
	if _, ok := w.Check(); ok || w.attached || w.fsw == nil {
		t.Fatalf("attached %v, watching %v: want not attached, the done file watched", w.attached, w.fsw != nil)
	}
	runWatcher(t, w, out)
	other.Release()
	own, err := lifeline.Hold(lifeline.Of(done), "this-pod")
	if err != nil {
		t.Fatal(err)
	}
	writeDone(t, done, statusfile.File{Event: "done", Host: "this-pod"})
	own.Release()
	if ev := waitDone(t, out); ev.Source != sourceDoneFile || ev.Status == nil || ev.Status.Host != "this-pod" {
		t.Fatalf("event %+v, want this pod's done file", ev)
	}
}
