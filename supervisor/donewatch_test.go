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

func watchFor(t *testing.T, cfg doneWatchConfig) (*doneWatcher, chan doneEvent) {
	t.Helper()
	if cfg.poll == 0 {
		cfg.poll = time.Hour // inotify alone must see it
	}
	w, err := newDoneWatcher(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan doneEvent, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go w.Run(ctx, out)
	return w, out
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
	w.close()
	w.fsw = nil // as when inotify is unavailable
	out := make(chan doneEvent, 1)
	go w.Run(context.Background(), out)
	writeDone(t, done, statusfile.File{Event: "done"})
	waitDone(t, out)
}

// --main-start-timeout: nothing done, no main attached: stop as if done.
func TestDoneWatcherMainStartTimeout(t *testing.T) {
	_, out := watchFor(t, doneWatchConfig{mainStartTimeout: 20 * time.Millisecond})
	if ev := waitDone(t, out); ev.Source != sourceNoMain {
		t.Fatalf("event %+v, want no-main", ev)
	}
}
