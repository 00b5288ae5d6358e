package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

func inotifyDescriptor(t *testing.T, n *notifyWatch) int {
	t.Helper()
	if n.ino == nil {
		t.Fatal("not watching")
	}
	return int(n.ino.Fd())
}

// watchCount is how many watches the kernel holds on the inotify
// descriptor fd (its fdinfo has a line for each).
func watchCount(t *testing.T, fd int) int {
	t.Helper()
	info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(info), "inotify wd:")
}

// Once done, the watches are removed and the descriptor kept: closing it
// with watches left would make tandem's exit wait for their teardown.
func TestDoneWatcherRemovesWatchesWhenDone(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	w, out := watchFor(t, doneWatchConfig{paths: []string{done}})
	if _, ok := w.check(); ok {
		t.Fatal("done before the file")
	}
	fd := inotifyDescriptor(t, w.notify)
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done"})
	waitDone(t, out)
	// The watcher removes them right after the event, on its own goroutine.
	deadline := time.Now().Add(waitBound)
	for watchCount(t, fd) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d watches left after the done event", watchCount(t, fd))
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		t.Fatalf("inotify closed before the run was over: %v", err)
	}
}
