package donewatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// inotifyCount is how many inotify descriptors this process holds.
func inotifyCount(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && link == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// While a main is not attached the directory is watched; once the Event
// is sent, Run releases inotify as it returns.
func TestDoneWatcherReleasesInotifyWhenDone(t *testing.T) {
	before := inotifyCount(t)
	done := filepath.Join(t.TempDir(), "done")
	w, out := watchFor(t, Config{Paths: []string{done}})
	if _, ok := w.Check(); ok {
		t.Fatal("done before the file")
	}
	if got := inotifyCount(t); got != before+1 {
		t.Fatalf("%d inotify descriptors while watching, want %d", got, before+1)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		w.Run(context.Background(), out)
	}()
	writeDone(t, done, statusfile.File{Event: "done"})
	waitDone(t, out)
	select {
	case <-ended:
	case <-time.After(waitBound):
		t.Fatal("Run did not return after sending the event")
	}
	if got := inotifyCount(t); got != before {
		t.Fatalf("%d inotify descriptors after Run, want %d", got, before)
	}
}
