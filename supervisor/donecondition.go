package supervisor

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// check reports whether the done condition holds now: every done file there
// (under --stop-when success, a success), or its main lost. While it does
// not, it attaches to any new lifeline, and keeps the files watched with
// inotify exactly while some main is not attached.
//
// The files are read first: a file that can be opened proves its way
// searchable, and a condition that holds needs no lifeline, so the common
// look (the file is there) makes no system call but the read on its way to
// the stop signal.
func (w *doneWatcher) check() (doneEvent, bool) {
	if len(w.files) == 0 {
		return doneEvent{}, false
	}
	w.notify.ensure() // a directory created since is watched from now on
	seen := make([]fileLook, len(w.files))
	for i, f := range w.files {
		look, err := w.look(f)
		if err != nil {
			return doneEvent{Err: err, SeenAt: w.clock.Now()}, true
		}
		seen[i] = look
	}
	event, done := w.condition(seen)
	if !done {
		for _, f := range w.files {
			w.attach.lifeline(f) // a main that ends without its file is lost
		}
		event, done = w.condition(seen)
	}
	// Once done, no watch is made or closed here: run removes the watches
	// once the loop has the event, and closing inotify waits for the kernel
	// to free them (up to ~20 ms), which must come neither between the done
	// file and the stop signal nor on the exit.
	switch {
	case done:
	case w.allAttached():
		w.notify.stop()
	default:
		w.notify.start()
	}
	event.SeenAt = w.clock.Now()
	return event, done
}

// fileLook is one done file as read by one check.
type fileLook struct {
	status  *statusfile.File
	present bool
}

// look reads f. A file that is not there is looked for again only to tell
// a missing file from a way closed to tandem (which fails the condition).
func (w *doneWatcher) look(f *doneFile) (fileLook, error) {
	status, present := f.read(w.cfg.host, w.warn)
	if !present {
		if err := w.searchable(f); err != nil {
			return fileLook{}, err
		}
	}
	return fileLook{status: status, present: present}, nil
}

// condition is the done condition over what check read, and the event that
// says so.
func (w *doneWatcher) condition(seen []fileLook) (doneEvent, bool) {
	event := doneEvent{Source: sourceDoneFile}
	done := true
	for i, f := range w.files {
		status, present := seen[i].status, seen[i].present
		switch {
		case present && (w.cfg.stopWhen == StopWhenAny || status.Succeeded()):
			if event.Source != sourceLost {
				event.Path, event.Status = f.path, status
			}
		case present:
			w.warn.warn("failed:"+f.path+status.Time.String(), cmdline.EventMainFailed, func(e *zerolog.Event) {
				e.Str("path", f.path).Int("exit_code", status.ExitCode).
					Msg("main failed; --stop-when success keeps CMD running until the done file is replaced")
			})
			done = false
		case f.lost && w.cfg.stopWhen == StopWhenAny:
			event.Source, event.Path, event.Status = sourceLost, f.path, nil
		default:
			done = false
		}
	}
	return event, done
}

// searchable is nil when f can be looked for, else why not, still so one
// --poll-interval later: a directory made with mkdir under a strict umask
// and opened with chmod after is closed to other users for a moment.
func (w *doneWatcher) searchable(f *doneFile) error {
	if f.searchable() == nil {
		return nil
	}
	<-w.clock.After(w.cfg.poll)
	return f.searchable()
}

func (w *doneWatcher) allAttached() bool {
	for _, f := range w.files {
		if f.line == nil {
			return false
		}
	}
	return true
}

// peerLossSettle: a main peer sends the done signal, then exits. The signal
// reaches the engine through the runtime's signal goroutine, the exit
// through this watcher's pidfd, and the exit can come first: it counts as
// a loss only once this long has passed, by when the engine has taken a
// done signal that was sent (a later loss changes nothing: TestSidecarDoneTwice).
// Only a main killed outright pays it.
const peerLossSettle = 100 * time.Millisecond

func (w *doneWatcher) settleLoss(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-w.clock.After(peerLossSettle):
		return true
	}
}

// mainLost: the main peer held through a pidfd ended without the done
// signal. Under --stop-when success it was a failed main: wait for the next.
func (w *doneWatcher) mainLost() (doneEvent, bool) {
	event(w.log.Warn(), cmdline.EventMainLost).Msg("the main's tandem ended without the done signal (killed outright?)")
	return doneEvent{Source: sourceLost, SeenAt: w.clock.Now()}, w.cfg.stopWhen == StopWhenAny
}
