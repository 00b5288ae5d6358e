package donewatch

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// watch keeps the done files' directories watched while some main is not
// attached through its lifeline, and nothing watched while every one is:
// then neither a wake-up nor the kernel's inotify teardown at exit is left
// (docs/files.md). Where fsnotify cannot be used, the files are polled.
func (w *Watcher) watch() {
	if w.allAttached() {
		w.closeWatch()
		return
	}
	if w.fsw == nil && !w.off {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			w.off = true
			event(w.log.Warn(), cmdline.EventWatchUnavailable).Err(err).Dur("poll_interval_ms", w.cfg.Poll).
				Msg("inotify unavailable (instances used up or unsupported); falling back to polling the done files")
			return
		}
		w.fsw = fsw
	}
	if w.fsw == nil {
		return
	}
	// Added again on every look: a directory deleted, moved away or
	// created since is watched from now on (adding is idempotent).
	for _, f := range w.files {
		if err := w.watchWay(filepath.Dir(f.path)); err != nil {
			w.cannotWatch(f, err)
		}
	}
}

// watchWay watches dir or, while it is missing, the nearest directory
// above it that exists, whose events say when the next one on the way is
// created. Once its parent is watched, dir is tried again: created in
// between, it raised no event there.
func (w *Watcher) watchWay(dir string) error {
	err := w.add(dir)
	parent := filepath.Dir(dir)
	if !errors.Is(err, fs.ErrNotExist) || parent == dir {
		return err
	}
	if err := w.watchWay(parent); err != nil {
		return err
	}
	if err := w.add(dir); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (w *Watcher) add(dir string) error {
	if w.beforeWatch != nil {
		w.beforeWatch(dir)
	}
	if err := w.fsw.Add(dir); err != nil {
		return &fs.PathError{Op: "watch", Path: dir, Err: err}
	}
	return nil
}

// matters: e may change the done condition. Its name is a done file, a
// lifeline, or a directory on their way (created, deleted, moved); a chmod
// says nothing.
func (w *Watcher) matters(e fsnotify.Event) bool {
	return e.Op&^fsnotify.Chmod != 0 && w.relevant[e.Name]
}

// events and errors are fsnotify's channels; nil (never ready) while not
// watching.
func (w *Watcher) events() <-chan fsnotify.Event {
	if w.fsw == nil {
		return nil
	}
	return w.fsw.Events
}

func (w *Watcher) errors() <-chan error {
	if w.fsw == nil {
		return nil
	}
	return w.fsw.Errors
}

// closeWatch releases inotify. The close waits for the kernel to free the
// watches (milliseconds): it comes while every main is attached, or after
// the Event is sent.
func (w *Watcher) closeWatch() {
	if w.fsw == nil {
		return
	}
	_ = w.fsw.Close() // its only error is the descriptor's close, which the exit does anyway
	w.fsw = nil
}

// cannotWatch warns, once, that the directory err names is polled instead
// of watched; unless f cannot even be looked for, which fails the
// condition instead.
func (w *Watcher) cannotWatch(f *doneFile, err error) {
	if w.unsearchable(f.path) != nil {
		return
	}
	dir := filepath.Dir(f.path)
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		dir, err = pathErr.Path, pathErr.Err
	}
	w.warn.warn("watch:"+dir, cmdline.EventWatchUnavailable, func(e *zerolog.Event) {
		e.Err(err).Str("dir", dir).Dur("poll_interval_ms", w.cfg.Poll).Msg("cannot watch directory; relying on polling")
	})
}
