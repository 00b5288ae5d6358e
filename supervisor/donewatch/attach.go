package donewatch

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
)

// attach watches f's lifeline when one is there that is not the one
// already seen released; a new one (the next main of an OnFailure pod)
// clears lost. A goroutine waits for its release and sends f on released.
// It reports whether it found a lifeline (held or already released).
func (w *Watcher) attach(f *doneFile) bool {
	if f.line != nil || (f.gone != nil && f.gone.Same()) {
		return false
	}
	line, err := lifeline.Watch(f.lifeline, w.cfg.Host)
	if err != nil && !errors.Is(err, lifeline.ErrReleased) {
		w.unattached(f, err)
		return false
	}
	if w.firstAttach() {
		event(w.log.Info(), cmdline.EventMainAttached).Str("path", f.lifeline).Msg("main attached through its lifeline")
	}
	if errors.Is(err, lifeline.ErrReleased) {
		f.released(line)
		w.logLost(f)
		return true
	}
	f.line, f.lost = line, false
	go func() {
		if line.Wait() == nil {
			w.released <- f
		}
	}()
	return true
}

// unattached says why f's lifeline is not attached to, once: absent (no
// main yet) says nothing.
func (w *Watcher) unattached(f *doneFile, err error) {
	var unusable *lifeline.UnusableError
	switch {
	case errors.Is(err, lifeline.ErrForeign):
		w.warn.warn("foreign:"+f.lifeline, cmdline.EventLifelineForeign, func(e *zerolog.Event) {
			e.Str("path", f.lifeline).Str("host", w.cfg.Host).
				Msg("the lifeline here is another pod's (a volume shared by mistake?); not attaching to it")
		})
	case errors.As(err, &unusable):
		w.warn.warn("lifeline:"+f.lifeline, cmdline.EventLifelineMissing, func(e *zerolog.Event) {
			e.Err(err).Str("path", f.path).
				Msg("relying on the done file alone: a main killed outright will not be noticed")
		})
	}
}

// holderGone: f's lifeline holder let go (its end came on released).
func (w *Watcher) holderGone(f *doneFile) {
	line := f.line
	f.line = nil
	f.released(line)
	w.logLost(f)
}

func (w *Watcher) logLost(f *doneFile) {
	if f.sidecarGone() {
		event(w.log.Warn(), cmdline.EventMainLost).Str("path", f.path).
			Msg("the sidecar's tandem ended without writing its stopped file (killed outright?); it counts as stopped")
		return
	}
	if f.lost {
		event(w.log.Warn(), cmdline.EventMainLost).Str("path", f.path).
			Msg("the main's tandem ended without writing its done file (killed outright?)")
	}
}

func (w *Watcher) allAttached() bool {
	for _, f := range w.files {
		if f.line == nil {
			return false
		}
	}
	return true
}

// firstAttach records that a main attached: true the first time, which is
// the time to say so.
func (w *Watcher) firstAttach() bool {
	first := !w.attached
	w.attached = true
	return first
}

// mainScanInterval: how often a sidecar in a shared PID namespace looks
// for its main until it holds it (then nothing wakes it).
const mainScanInterval = 250 * time.Millisecond

// peerMain is, without done files, the held peer's end, or while none is
// held, when to look for it again. With done files, nothing.
func (w *Watcher) peerMain() (gone <-chan struct{}, rescan <-chan time.Time) {
	if w.cfg.Mains == nil {
		return nil, nil
	}
	if w.held == nil {
		w.held = w.findMain()
	}
	if w.held == nil {
		return nil, w.cfg.Clock.After(mainScanInterval)
	}
	return w.held, nil
}

// findMain holds the main peer that signals this sidecar, if it runs now.
func (w *Watcher) findMain() <-chan struct{} {
	p, found := w.cfg.Mains.FindMain(w.cfg.Name)
	if !found {
		return nil
	}
	gone, err := w.cfg.Mains.WatchMain(p)
	if err != nil {
		return nil
	}
	if w.firstAttach() {
		event(w.log.Info(), cmdline.EventMainAttached).Int("peer_pid", p.PID).Msg("main attached through a pidfd")
	}
	return gone
}

// peerLossSettle: a main peer sends the done signal, then exits. The
// signal reaches the engine through the runtime's signal goroutine, the
// exit through this watcher's pidfd, and the exit can come first: it counts
// as a loss only once this long has passed, by when the engine has taken a
// done signal that was sent (a later loss changes nothing). Only a main
// killed outright pays it.
const peerLossSettle = 100 * time.Millisecond

func (w *Watcher) settleLoss(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-w.cfg.Clock.After(peerLossSettle):
		return true
	}
}

// mainLost: the main peer held through a pidfd ended without the done
// signal. With SuccessOnly, it was a failed main: wait for the next.
func (w *Watcher) mainLost() (Event, bool) {
	event(w.log.Warn(), cmdline.EventMainLost).Msg("the main's tandem ended without the done signal (killed outright?)")
	return Event{Source: SourceLost, SeenAt: w.cfg.Clock.Now()}, !w.cfg.SuccessOnly
}

// startExpiry is when --main-start-timeout passes: a sidecar whose main
// never attached and never finished within it stops as if done, rather
// than run until the Job's deadline. Nil when it is off or a main already
// attached.
func (w *Watcher) startExpiry() <-chan time.Time {
	limit := w.cfg.MainStartTimeout
	if limit <= 0 || w.attached {
		return nil
	}
	return w.cfg.Clock.After(limit - w.cfg.Clock.Now().Sub(w.started))
}

// startExpired: the timeout is done, unless a main attached meanwhile.
func (w *Watcher) startExpired() (Event, bool) {
	if w.attached {
		return Event{}, false
	}
	event(w.log.Warn(), cmdline.EventMainStartTimeout).Dur("main_start_timeout_ms", w.cfg.MainStartTimeout).
		Msg("no main attached and nothing done within main-start-timeout; stopping as if done")
	return Event{Source: SourceNoMain, SeenAt: w.cfg.Clock.Now()}, true
}
