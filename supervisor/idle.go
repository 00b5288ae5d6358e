package supervisor

import (
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
)

// idleEnd is why a wait with no CMD running ended early.
type idleEnd struct {
	signal unix.Signal  // a signal that ends tandem
	done   *doneEvent   // sidecar: the main was done
	lost   *sidecarLoss // main: a needed sidecar was lost
}

// idle waits while no CMD runs (main's --wait-for, a sidecar's restart
// backoff, main's announcement) until one of until delivers (its waitOver
// or its timer). Signals mean what signalTable says for the idle phases.
// It returns false, and why, when the wait ended early. A wait over while
// the hold still looks for a main's mark goes on until the answer: a
// restart is not begun for a signal that may be this container's alone.
func (e *engine) idle(during string, until eventChans) (idleEnd, bool) {
	until.done, until.signals, until.lost = e.done, e.signals, e.lost
	over := false
	for {
		until.holdTimer = e.deletion.holdTimer()
		ev := e.next(until)
		switch ev.kind {
		case evDone:
			return idleEnd{done: &ev.done}, false
		case evSignal:
			if end, ended := e.idleSignal(ev.signal, during); ended {
				return end, false
			}
		case evLoss:
			return idleEnd{lost: &ev.loss}, false
		case evHoldTimer:
			if end, ended := e.holdStepped(e.deletion.tick(), during); ended {
				return end, false
			}
		default: // evTimer, evWaitOver: what the wait was for
			until.timer, until.waitOver, over = nil, nil, true
		}
		if over && !e.deletion.looking() {
			return idleEnd{}, true
		}
	}
}

// idleSignal does what the signal means while no CMD runs; ended says the
// signal ends the wait. during names the wait in the log.
func (e *engine) idleSignal(sig unix.Signal, during string) (idleEnd, bool) {
	if ev, deleted := e.deletion.afterMains(e.policy.kindOf(sig) == kindTermination); deleted {
		e.stopAsked = true
		return idleEnd{done: &ev}, true
	}
	m, terminating := e.policy.meaning(sig, idlePhase(e.deletion))
	e.stopAsked = e.stopAsked || terminating
	switch m {
	case sigDone:
		ev := doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()}
		return idleEnd{done: &ev}, true
	case sigHold:
		return e.holdStepped(e.deletion.take(), during)
	case sigTerminate:
		return interruptedIdle(e.log, sig, during), true
	}
	e.log.Debug().Str("signal", signals.Name(sig)).Str("phase", during).Msg("signal ignored: CMD is not running")
	return idleEnd{}, false
}

// interruptedIdle: a signal ends tandem while no CMD runs (128+N).
func interruptedIdle(log zerolog.Logger, sig unix.Signal, during string) idleEnd {
	event(log.Warn(), cmdline.EventInterrupted).Str("signal", signals.Name(sig)).Str("phase", during).
		Msg("signal ends tandem while no CMD runs")
	return idleEnd{signal: sig}
}
