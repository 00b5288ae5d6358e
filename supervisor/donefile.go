package supervisor

import (
	"errors"
	"os"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// doneFile is one done file as the sidecar sees it: the file itself, and the
// lifeline of the tandem that will write it.
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

// attach watches the lifeline when one is there that is not the one already
// seen released; a new one (the next main of an OnFailure pod) clears lost.
func (f *doneFile) attach(w *doneWatcher) {
	if f.line != nil || (f.gone != nil && f.gone.Same()) {
		return
	}
	line, err := lifeline.Watch(f.lifeline, w.cfg.host)
	var unusable *lifeline.UnusableError
	switch {
	case errors.Is(err, lifeline.ErrAbsent):
		return
	case errors.Is(err, lifeline.ErrForeign):
		w.warnOnce("foreign:"+f.lifeline, func(e *zerolog.Event) {
			e.Str("event", cmdline.EventLifelineForeign).Str("path", f.lifeline).Str("host", w.cfg.host).
				Msg("the lifeline here is another pod's (a volume shared by mistake?); not attaching to it")
		})
		return
	case errors.As(err, &unusable):
		w.warnOnce("lifeline:"+f.lifeline, func(e *zerolog.Event) {
			e.Str("event", cmdline.EventLifelineMissing).Err(err).Str("path", f.path).
				Msg("relying on the done file alone: a main killed outright will not be noticed")
		})
		return
	}
	f.markAttached(w)
	if errors.Is(err, lifeline.ErrReleased) {
		f.setGone(line)
		f.lost = !f.exists()
		f.logLost(w)
		return
	}
	f.line, f.lost = line, false
	go func() {
		if line.Wait() == nil {
			w.released <- f
		}
	}()
}

func (f *doneFile) markAttached(w *doneWatcher) {
	if !w.attached {
		w.attached = true
		event(w.log.Info(), cmdline.EventMainAttached).Str("path", f.lifeline).Msg("main attached through its lifeline")
	}
}

// holderGone: the lifeline's holder let go. It writes the done file first,
// so no file now means it was lost. (A file there from another pod means the
// volume is shared: not a lost main of ours.)
func (f *doneFile) holderGone(w *doneWatcher) {
	line := f.line
	f.line = nil
	f.setGone(line)
	f.lost = !f.exists()
	f.logLost(w)
}

func (f *doneFile) exists() bool {
	_, err := os.Lstat(f.path)
	return err == nil
}

func (f *doneFile) setGone(line *lifeline.Line) {
	if f.gone != nil {
		f.gone.Close()
	}
	f.gone = line
}

func (f *doneFile) logLost(w *doneWatcher) {
	if f.lost {
		w.log.Warn().Str("event", cmdline.EventMainLost).Str("path", f.path).
			Msg("the main's tandem ended without writing its done file (killed outright?)")
	}
}

// read gives the done file's status; a file from another pod does not count.
func (f *doneFile) read(w *doneWatcher) (*statusfile.File, bool) {
	status, present, err := statusfile.Read(f.path)
	if !present {
		return nil, false
	}
	if err != nil {
		w.warnOnce("read:"+f.path, func(e *zerolog.Event) {
			e.Str("event", cmdline.EventDoneUnreadable).Err(err).Str("path", f.path).
				Msg("done file exists but cannot be read; counting it as done, status unknown")
		})
	}
	if status != nil && status.Host != "" && w.cfg.host != "" && status.Host != w.cfg.host {
		w.warnOnce("host:"+f.path+status.Host, func(e *zerolog.Event) {
			e.Str("event", cmdline.EventDoneFileForeign).Str("path", f.path).Str("file_host", status.Host).Str("host", w.cfg.host).
				Msg("done file written in another pod (a volume shared by mistake?); ignoring it")
		})
		return nil, false
	}
	return status, true
}
