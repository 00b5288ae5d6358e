package supervisor

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// notifyWatch is the done watcher's watch job: inotify on the done files'
// directories. A change that matters is sent on changed; what it means is
// the loop's business (it reads every file).
type notifyWatch struct {
	log      zerolog.Logger
	warn     *onceWarner
	poll     time.Duration     // said in warnings: polling still sees the files
	files    []string          // the done files
	dirs     []string          // each one's directory
	relevant map[string]bool   // the files, their lifelines and every ancestor directory
	fsw      *fsnotify.Watcher // nil: not watching (all attached, or inotify unavailable)
	off      bool              // inotify is unavailable: poll alone
	// changed holds one pending change at most: one look reads every file.
	changed chan struct{}
}

func newNotifyWatch(poll time.Duration, log zerolog.Logger, warn *onceWarner) *notifyWatch {
	return &notifyWatch{log: log, warn: warn, poll: poll, relevant: map[string]bool{}, changed: make(chan struct{}, 1)}
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

func (n *notifyWatch) watching() bool { return n.fsw != nil }

// start (re)creates the inotify watch; without inotify, polling alone keeps
// the done files seen.
func (n *notifyWatch) start() {
	if n.fsw != nil || n.off {
		return
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		n.off = true
		event(n.log.Warn(), cmdline.EventWatchUnavailable).Err(err).Dur("poll_interval_ms", n.poll).
			Msg("inotify unavailable (instances used up or unsupported); falling back to polling the done files")
		return
	}
	n.fsw = fsw
	go n.forward(fsw)
	n.ensure()
}

// stop releases inotify while every main is attached: its teardown
// (milliseconds in the kernel) is then off the exit path, and nothing wakes
// an idle sidecar.
func (n *notifyWatch) stop() {
	if n.fsw != nil {
		n.fsw.Close()
		n.fsw = nil
	}
}

// forward sends a change for every relevant event of fsw until it is
// closed. An error (typically a queue overflow: events were lost) is a
// change too: look now.
func (n *notifyWatch) forward(fsw *fsnotify.Watcher) {
	for {
		select {
		case e, ok := <-fsw.Events:
			if !ok {
				return
			}
			if e.Op == fsnotify.Chmod || !n.relevant[e.Name] {
				continue
			}
		case err, ok := <-fsw.Errors:
			if !ok {
				return
			}
			event(n.log.Warn(), cmdline.EventWatchError).Err(err).Msg("inotify reported an error; checking the done files")
		}
		select {
		case n.changed <- struct{}{}:
		default: // a change is already pending
		}
	}
}

// ensure watches each done file's directory, or its nearest existing
// ancestor until the directory is created. Add is idempotent, and re-adding
// after a directory was deleted and recreated is what keeps the watch alive.
func (n *notifyWatch) ensure() {
	if n.fsw == nil {
		return
	}
	for i, dir := range n.dirs {
		for {
			err := n.fsw.Add(dir)
			if err == nil {
				break
			}
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
