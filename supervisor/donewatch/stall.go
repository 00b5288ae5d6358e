package donewatch

import (
	"time"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// stallWatch notices a done condition half met for too long: some files
// there, others not. Sidecars that stop in order wait on each other's
// stopped files, and two that list each other's wait for ever, silently;
// the warning names what is awaited.
type stallWatch struct {
	timer  <-chan time.Time // armed while half met; nil otherwise
	due    bool             // it fired: the next half-met look warns
	warned bool
}

// noteStall arms, disarms or fires the stall warning after a look that
// found the condition not met.
func (w *Watcher) noteStall(seen []fileLook) {
	var present, missing []string
	for i, f := range w.files {
		if seen[i].present {
			present = append(present, f.path)
		} else {
			missing = append(missing, f.path)
		}
	}
	s := &w.stall
	switch {
	case len(present) == 0 || len(missing) == 0 || w.cfg.StallAfter <= 0 || s.warned:
		s.timer, s.due = nil, false
	case s.due:
		s.warned = true
		event(w.log.Warn(), cmdline.EventDoneFilesAwaited).Strs("waiting_for", missing).Strs("present", present).
			Dur("waited_ms", w.cfg.StallAfter).
			Msg("some done files are there and these are not, for longer than --grace: if one is another sidecar's --stopped-file and that sidecar waits for this one's, they wait for each other for ever")
	case s.timer == nil:
		s.timer = w.cfg.Clock.After(w.cfg.StallAfter)
	}
}
