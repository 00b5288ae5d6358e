package donewatch

import (
	"os"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// doneFile is one done file as the sidecar sees it: the file itself, and
// the lifeline of the tandem that will write it.
type doneFile struct {
	path     string
	lifeline string
	line     *lifeline.Line // attached: a goroutine waits for its release
	gone     *lifeline.Line // the last lifeline whose holder let go
	lost     bool           // that holder ended without writing the file
}

func newDoneFile(path string) *doneFile {
	return &doneFile{path: path, lifeline: lifeline.Of(path)}
}

// released: line's holder let go. It writes the done file first, so no
// file now means it was lost.
func (f *doneFile) released(line *lifeline.Line) {
	if f.gone != nil {
		f.gone.Close()
	}
	f.gone = line
	_, err := os.Lstat(f.path)
	f.lost = err != nil
}

// sidecarGone: f is a sidecar's stopped file whose holder was lost. That
// sidecar is gone, which counts as stopped whatever --stop-when says: that
// setting is about the main's exit status, and a sidecar killed outright
// has no next run in this pod to wait for.
func (f *doneFile) sidecarGone() bool {
	return f.lost && f.gone != nil && f.gone.Kind() == lifeline.KindStopped
}

// fileLook is one done file as read by one look.
type fileLook struct {
	status  *statusfile.File
	present bool
}

// look reads every file (at most 64 KiB each) and says whether the done
// condition holds over them.
func (w *Watcher) look() (Event, bool) {
	seen := make([]fileLook, len(w.files))
	for i, f := range w.files {
		status, present := w.read(f)
		if !present {
			if err := w.searchable(f); err != nil {
				return Event{Err: err, SeenAt: w.cfg.Clock.Now()}, true
			}
		}
		seen[i] = fileLook{status: status, present: present}
	}
	ev, done := w.condition(seen)
	ev.SeenAt = w.cfg.Clock.Now()
	if !done {
		w.noteStall(seen)
	}
	return ev, done
}

// condition is the done condition over what look read, and the event that
// says so.
func (w *Watcher) condition(seen []fileLook) (Event, bool) {
	ev := Event{Source: SourceDoneFile}
	done := true
	for i, f := range w.files {
		status, present := seen[i].status, seen[i].present
		switch {
		case present && (!w.cfg.SuccessOnly || status.Succeeded()):
			if ev.Source != SourceLost {
				ev.Path, ev.Status = f.path, status
			}
		case present:
			w.warn.warn("failed:"+f.path+status.Time.String(), cmdline.EventMainFailed, func(e *zerolog.Event) {
				e.Str("path", f.path).Int("exit_code", status.ExitCode).
					Msg("main failed; --stop-when success keeps CMD running until the done file is replaced")
			})
			done = false
		case f.lost && (!w.cfg.SuccessOnly || f.sidecarGone()):
			ev.Source, ev.Path, ev.Status = SourceLost, f.path, nil
		default:
			done = false
		}
	}
	return ev, done
}

// read gives the done file's status; a file from another pod (its host is
// not ours) does not count.
func (w *Watcher) read(f *doneFile) (*statusfile.File, bool) {
	status, present, err := statusfile.Read(f.path)
	if !present {
		return nil, false
	}
	if err != nil {
		w.warn.warn("read:"+f.path, cmdline.EventDoneUnreadable, func(e *zerolog.Event) {
			e.Err(err).Str("path", f.path).
				Msg("done file exists but cannot be read; counting it as done, status unknown")
		})
	}
	host := w.cfg.Host
	if status != nil && status.Host != "" && host != "" && status.Host != host {
		w.warn.warn("host:"+f.path+status.Host, cmdline.EventDoneFileForeign, func(e *zerolog.Event) {
			e.Str("path", f.path).Str("file_host", status.Host).Str("host", host).
				Msg("done file written in another pod (a volume shared by mistake?); ignoring it")
		})
		return nil, false
	}
	return status, true
}

// searchable is nil when f can be looked for: its lifeline is attached
// (which proves the way open), or nothing denies the way. A way denied is
// looked at again one --poll-interval later before it fails the condition:
// a directory made with mkdir under a strict umask and opened with chmod
// after is closed to other users for a moment.
func (w *Watcher) searchable(f *doneFile) error {
	if f.line != nil || w.unsearchable(f.path) == nil {
		return nil
	}
	<-w.cfg.Clock.After(w.cfg.Poll)
	return w.unsearchable(f.path)
}

func (w *Watcher) unsearchable(path string) error {
	if w.cfg.Unsearchable == nil {
		return nil
	}
	return w.cfg.Unsearchable(path)
}
