package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/signals"
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
	until.done, until.signals, until.lost = e.doneChan(), e.signals, e.lostChan()
	over := false
	for {
		until.holdTimer = e.hold.timerChan()
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
			if end, ended := e.idleHold(e.hold.tick(), during); ended {
				return end, false
			}
		default: // evTimer, evWaitOver: what the wait was for
			until.timer, until.waitOver, over = nil, nil, true
		}
		if over && !e.hold.looking() {
			return idleEnd{}, true
		}
	}
}

// idleSignal does what the signal means while no CMD runs; ended says the
// signal ends the wait. during names the wait in the log.
func (e *engine) idleSignal(sig unix.Signal, during string) (idleEnd, bool) {
	switch m, _ := e.meaning(sig, e.idlePhase()); m {
	case sigDone:
		ev := doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()}
		return idleEnd{done: &ev}, true
	case sigHold:
		e.logHold(e.hold.take(), true)
		return idleEnd{}, false
	case sigTerminate:
		return e.interruptedIdle(sig, during), true
	}
	e.log.Debug().Str("signal", signals.Name(sig)).Str("phase", during).Msg("signal ignored: CMD is not running")
	return idleEnd{}, false
}

// idleHold does what a step of the hold means while no CMD runs: the held
// signal, once it would go on, ends tandem.
func (e *engine) idleHold(step holdStep, during string) (idleEnd, bool) {
	e.logHold(step, true)
	switch step {
	case stepAlone:
		return e.interruptedIdle(e.cfg.Sidecar.TerminationSignal, during), true
	case stepReleased:
		return idleEnd{signal: e.cfg.Sidecar.TerminationSignal}, true
	}
	return idleEnd{}, false
}

func (e *engine) interruptedIdle(sig unix.Signal, during string) idleEnd {
	event(e.log.Warn(), cmdline.EventInterrupted).Str("signal", signals.Name(sig)).Str("phase", during).
		Msg("signal ends tandem while no CMD runs")
	return idleEnd{signal: sig}
}
