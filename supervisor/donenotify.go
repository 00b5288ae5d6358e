package supervisor

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// notifyWatch is the done watcher's watch job: inotify on the done files'
// directories. A change that matters is sent on changed; what it means is
// the loop's business (it reads every file).
//
// The goroutine that reads inotify filters the events and sends on changed
// itself: no library goroutine and channel in between, one hand-off fewer
// between the done file and the stop signal.
type notifyWatch struct {
	log      zerolog.Logger
	warn     *onceWarner
	poll     time.Duration   // said in warnings: polling still sees the files
	files    []string        // the done files
	dirs     []string        // each one's directory
	relevant map[string]bool // the files, their lifelines and every ancestor directory
	ino      *os.File        // nil: not watching (all attached, or inotify unavailable)
	off      bool            // inotify is unavailable: poll alone
	// changed holds one pending change at most: one look reads every file.
	changed chan struct{}
	mu      sync.Mutex
	watched map[int32]string // watch descriptor → the directory it watches
	// settled: every done file's own directory is watched, and nothing
	// since could have changed that (a directory moved or deleted, events
	// lost): ensure has nothing to add.
	settled atomic.Bool
}

func newNotifyWatch(poll time.Duration, log zerolog.Logger, warn *onceWarner) *notifyWatch {
	return &notifyWatch{log: log, warn: warn, poll: poll, relevant: map[string]bool{},
		changed: make(chan struct{}, 1), watched: map[int32]string{}}
}

// add makes f's directory watched, and changes to it, its lifeline and its
// ancestors relevant. Only before start.
func (n *notifyWatch) add(f *doneFile) {
	n.files = append(n.files, f.path)
	n.dirs = append(n.dirs, filepath.Dir(f.path))
	n.relevant[f.lifeline] = true
	for d := f.path; !n.relevant[d]; d = filepath.Dir(d) {
		n.relevant[d] = true
	}
}

func (n *notifyWatch) watching() bool { return n.ino != nil }

// start (re)creates the inotify watch; without inotify, polling alone keeps
// the done files seen.
func (n *notifyWatch) start() {
	if n.ino != nil || n.off {
		return
	}
	ino, err := openInotify()
	if err != nil {
		n.off = true
		event(n.log.Warn(), cmdline.EventWatchUnavailable).Err(err).Dur("poll_interval_ms", n.poll).
			Msg("inotify unavailable (instances used up or unsupported); falling back to polling the done files")
		return
	}
	n.ino = ino
	go n.read(ino)
	n.ensure()
}

// stop releases inotify while every main is attached: its teardown
// (milliseconds in the kernel) is then off the exit path, and nothing wakes
// an idle sidecar. The close wakes the reader, which then returns; it waits
// for the kernel to free the watches, so it is not waited for here.
func (n *notifyWatch) stop() {
	if n.ino == nil {
		return
	}
	n.unwatch()
	go n.ino.Close()
	n.ino = nil
}

// unwatch removes every watch and keeps the descriptor. Closing inotify
// with watches left makes the closer wait while the kernel frees them
// (milliseconds, and tandem's exit when that is the closer); removed first,
// they are freed in the background, and a close later finds nothing to wait
// for (docs/benchmarks.md).
func (n *notifyWatch) unwatch() {
	if n.ino == nil {
		return
	}
	n.settled.Store(false)
	n.mu.Lock()
	defer n.mu.Unlock()
	for wd := range n.watched {
		_ = removeInotifyWatch(n.ino, wd) // a watch already gone (its directory deleted) is gone
		delete(n.watched, wd)
	}
}

// read sends a change for every relevant event of ino until it is closed.
// Lost events are a change too: look now.
func (n *notifyWatch) read(ino *os.File) {
	var buf [4096]byte
	for {
		got, err := ino.Read(buf[:])
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				event(n.log.Warn(), cmdline.EventWatchError).Err(err).Msg("cannot read inotify; polling the done files")
			}
			return
		}
		relevant := false
		parseInotify(buf[:got], func(e inotifyEvent) { relevant = n.relevantEvent(e) || relevant })
		if relevant {
			select {
			case n.changed <- struct{}{}:
			default: // a change is already pending
			}
		}
	}
}

// relevantEvent says whether e may change the done condition. An event on
// a watched directory itself (moved, deleted, its watch gone) or lost
// events make ensure look at the watches again.
func (n *notifyWatch) relevantEvent(e inotifyEvent) bool {
	if e.overflow {
		n.settled.Store(false)
		event(n.log.Warn(), cmdline.EventWatchError).Err(errInotifyOverflow).Msg("inotify reported an error; checking the done files")
		return true
	}
	n.mu.Lock()
	dir, known := n.watched[e.wd]
	if e.ignored {
		delete(n.watched, e.wd)
	}
	n.mu.Unlock()
	if !known {
		return false
	}
	if e.name == "" {
		n.settled.Store(false)
		return !e.ignored && n.relevant[dir]
	}
	return n.relevant[filepath.Join(dir, e.name)]
}

// unsettle makes the next ensure add every watch again: a poll does, in
// case a directory on the way was renamed, which no watch of ours reports.
func (n *notifyWatch) unsettle() { n.settled.Store(false) }

// ensure watches each done file's directory, or its nearest existing
// ancestor until the directory is created. Adding again is harmless, and
// after a directory was deleted and recreated it is what keeps the watch
// alive. Settled is set first: an event the reader takes meanwhile clears
// it again. The reader waits for the lock, so an event that comes right
// after a watch is added finds its directory.
func (n *notifyWatch) ensure() {
	if n.ino == nil || n.settled.Load() {
		return
	}
	n.settled.Store(true)
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, dir := range n.dirs {
		for {
			wd, err := addInotifyWatch(n.ino, dir)
			if err == nil {
				n.watched[wd] = dir
				break
			}
			n.settled.Store(false)
			parent := filepath.Dir(dir)
			if !errors.Is(err, unix.ENOENT) || parent == dir {
				n.cannotWatch(dir, n.files[i], err)
				break
			}
			dir = parent
		}
	}
}

// cannotWatch warns, once, that dir is polled instead of watched; unless
// file cannot even be looked for, which fails the done condition instead.
func (n *notifyWatch) cannotWatch(dir, file string, err error) {
	if unsearchable(file) != nil {
		return
	}
	n.warn.warn("watch:"+dir, cmdline.EventWatchUnavailable, func(e *zerolog.Event) {
		e.Err(err).Str("dir", dir).Dur("poll_interval_ms", n.poll).Msg("cannot watch directory; relying on polling")
	})
}
