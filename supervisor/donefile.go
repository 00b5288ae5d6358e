package supervisor

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
)

// DoneEvent says the main work is done, and how tandem learned it.
type DoneEvent struct {
	Source string      // "done-file" or "done-signal"
	Path   string      // the last done file read, for done-file
	Status *StatusFile // nil when unknown (a bare touch, a signal)
	SeenAt time.Time
}

// doneFileWatcher waits until every done file exists (and, with
// --stop-when success, reports success). It watches the directories with
// inotify, stats after adding each watch so nothing slips between, and stats
// again every poll interval in case an event was missed. Where inotify is
// unavailable it polls alone.
type doneFileWatcher struct {
	paths    []string
	relevant map[string]bool // the files and every ancestor directory
	stopWhen StopWhen
	poll     time.Duration
	log      zerolog.Logger
	fsw      *fsnotify.Watcher // nil: polling only
	warned   map[string]bool   // one warning per problem, not one per poll
}

func newDoneFileWatcher(paths []string, stopWhen StopWhen, poll time.Duration, log zerolog.Logger) (*doneFileWatcher, error) {
	w := &doneFileWatcher{relevant: map[string]bool{}, stopWhen: stopWhen, poll: poll, log: log, warned: map[string]bool{}}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		w.paths = append(w.paths, abs)
		for d := abs; !w.relevant[d]; d = filepath.Dir(d) {
			w.relevant[d] = true
		}
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		log.Warn().Err(err).Dur("poll_interval", poll).
			Msg("inotify unavailable (instances used up or unsupported); falling back to polling the done files")
	} else {
		w.fsw = fsw
	}
	w.ensureWatches()
	// The first json.Unmarshal into a StatusFile builds encoding/json's
	// reflection cache; pay that here, before CMD starts, not between the
	// done file and the stop signal (bench: done → CMD gone 0.41 → 0.34 ms
	// median, about 60 µs, in 6 of 6 paired runs).
	ParseStatusFile([]byte(`{"version":1,"name":"warm-up","event":"done","exitCode":0,"reason":"exited","time":"2026-01-01T00:00:00Z"}`))
	return w, nil
}

// ensureWatches watches each done file's directory, or its nearest existing
// ancestor until the directory is created. Add is idempotent, and re-adding
// after a directory was deleted and recreated is what keeps the watch alive.
func (w *doneFileWatcher) ensureWatches() {
	if w.fsw == nil {
		return
	}
	for _, p := range w.paths {
		dir := filepath.Dir(p)
		for {
			err := w.fsw.Add(dir)
			if err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if !errors.Is(err, fsnotifyMissing) || parent == dir {
				w.warnOnce("watch:"+dir, func(e *zerolog.Event) {
					e.Err(err).Str("dir", dir).Dur("poll_interval", w.poll).
						Msg("cannot watch directory; relying on polling")
				})
				break
			}
			dir = parent
		}
	}
}

func (w *doneFileWatcher) warnOnce(key string, msg func(*zerolog.Event)) {
	if !w.warned[key] {
		w.warned[key] = true
		msg(w.log.Warn())
	}
}

// check reports whether the done condition holds now.
func (w *doneFileWatcher) check() (DoneEvent, bool) {
	event := DoneEvent{Source: "done-file"}
	for _, p := range w.paths {
		status, present, err := ReadStatusFile(p)
		if !present {
			return DoneEvent{}, false
		}
		if err != nil {
			w.warnOnce("read:"+p, func(e *zerolog.Event) {
				e.Err(err).Str("path", p).Msg("done file exists but cannot be read; counting it as done, status unknown")
			})
		}
		if w.stopWhen == StopWhenSuccess && !status.Succeeded() {
			w.warnOnce("failed:"+p+status.Time.String(), func(e *zerolog.Event) {
				e.Str("path", p).Int("exit_code", status.ExitCode).
					Msg("main failed; --stop-when success keeps CMD running until the done file is replaced")
			})
			return DoneEvent{}, false
		}
		event.Path, event.Status = p, status
	}
	event.SeenAt = time.Now()
	return event, true
}

// run sends one event to out when the done condition holds, then returns.
func (w *doneFileWatcher) run(ctx context.Context, out chan<- DoneEvent) {
	ticker := time.NewTicker(w.poll)
	defer ticker.Stop()
	var (
		events <-chan fsnotify.Event
		errs   <-chan error
	)
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Op == fsnotify.Chmod || !w.relevant[ev.Name] {
				continue
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// Typically a queue overflow: events were lost, so look now.
			w.log.Warn().Err(err).Msg("inotify reported an error; checking the done files")
		case <-ticker.C:
		}
		w.ensureWatches()
		if ev, done := w.check(); done {
			out <- ev
			// Releasing inotify costs milliseconds in the kernel; pay it now,
			// while CMD is being stopped, rather than in tandem's exit.
			w.close()
			return
		}
	}
}

func (w *doneFileWatcher) close() {
	if w.fsw != nil {
		w.fsw.Close()
	}
}
