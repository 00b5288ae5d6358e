package supervisor

import (
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/peers"
)

// mainFinder finds and holds the `tandem main` peer (peers.ProcFinder).
type mainFinder interface {
	FindMain(name string) (peers.Peer, bool)
	WatchMain(p peers.Peer) (<-chan struct{}, error)
}

// mainScanInterval: how often a sidecar in a shared PID namespace looks for
// its main until it holds it (then nothing wakes it).
const mainScanInterval = 250 * time.Millisecond

// attacher is the done watcher's attach job: it holds the mains that will
// write the done files through their lifelines, and sends a file on
// released when its holder lets go; or, without done files, it holds the
// `tandem main` peer through a pidfd, whose end is the channel peerMain
// gives.
type attacher struct {
	clock    clock
	log      zerolog.Logger
	warn     *onceWarner
	host     string
	released chan *doneFile // a lifeline's holder let go
	mains    mainFinder     // nil: done files, no peer to hold
	name     string
	held     <-chan struct{} // the held peer's end; nil while none is held
	attached bool            // some main attached once (--main-start-timeout)
}

func newAttacher(clk clock, mains mainFinder, name, host string, files int, log zerolog.Logger, warn *onceWarner) *attacher {
	return &attacher{clock: clk, log: log, warn: warn, host: host, mains: mains, name: name,
		released: make(chan *doneFile, files)}
}

// lifeline watches f's lifeline when one is there that is not the one
// already seen released; a new one (the next main of an OnFailure pod)
// clears lost.
func (a *attacher) lifeline(f *doneFile) {
	if f.line != nil || (f.gone != nil && f.gone.Same()) {
		return
	}
	line, err := lifeline.Watch(f.lifeline, a.host)
	if err != nil && !errors.Is(err, lifeline.ErrReleased) {
		a.unattached(f, err)
		return
	}
	if a.firstAttach() {
		event(a.log.Info(), cmdline.EventMainAttached).Str("path", f.lifeline).Msg("main attached through its lifeline")
	}
	if errors.Is(err, lifeline.ErrReleased) {
		f.released(line)
		a.logLost(f)
		return
	}
	f.line, f.lost = line, false
	go func() {
		if line.Wait() == nil {
			a.released <- f
		}
	}()
}

// unattached says why f's lifeline is not attached to, once: absent (no
// main yet) says nothing.
func (a *attacher) unattached(f *doneFile, err error) {
	var unusable *lifeline.UnusableError
	switch {
	case errors.Is(err, lifeline.ErrForeign):
		a.warn.warn("foreign:"+f.lifeline, cmdline.EventLifelineForeign, func(e *zerolog.Event) {
			e.Str("path", f.lifeline).Str("host", a.host).
				Msg("the lifeline here is another pod's (a volume shared by mistake?); not attaching to it")
		})
	case errors.As(err, &unusable):
		a.warn.warn("lifeline:"+f.lifeline, cmdline.EventLifelineMissing, func(e *zerolog.Event) {
			e.Err(err).Str("path", f.path).
				Msg("relying on the done file alone: a main killed outright will not be noticed")
		})
	}
}

// holderGone: f's lifeline holder let go (its end came on released).
func (a *attacher) holderGone(f *doneFile) {
	line := f.line
	f.line = nil
	f.released(line)
	a.logLost(f)
}

func (a *attacher) logLost(f *doneFile) {
	if f.lost {
		event(a.log.Warn(), cmdline.EventMainLost).Str("path", f.path).
			Msg("the main's tandem ended without writing its done file (killed outright?)")
	}
}

// firstAttach records that a main attached: true the first time, which is
// the time to say so.
func (a *attacher) firstAttach() bool {
	first := !a.attached
	a.attached = true
	return first
}

// peerMain is, without done files, the held peer's end, or while none is
// held, when to look for it again. With done files, nothing.
func (a *attacher) peerMain() (gone <-chan struct{}, rescan <-chan time.Time) {
	if a.mains == nil {
		return nil, nil
	}
	if a.held == nil {
		a.held = a.findMain()
	}
	if a.held == nil {
		return nil, a.clock.After(mainScanInterval)
	}
	return a.held, nil
}

// peerEnded: the held peer's end came; look for the next one.
func (a *attacher) peerEnded() { a.held = nil }

// findMain holds the main peer that signals this sidecar, if it runs now.
func (a *attacher) findMain() <-chan struct{} {
	p, found := a.mains.FindMain(a.name)
	if !found {
		return nil
	}
	gone, err := a.mains.WatchMain(p)
	if err != nil {
		return nil
	}
	if a.firstAttach() {
		event(a.log.Info(), cmdline.EventMainAttached).Int("peer_pid", p.PID).Msg("main attached through a pidfd")
	}
	return gone
}
