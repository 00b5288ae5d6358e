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
// backoff, main's announcement) until ready delivers. Signals mean what
// signalTable says for phaseIdle; ok is false when the wait ended early.
//
// Pending at once, the done condition comes first (the main is done: no
// restart), then signals (a pod going away starts no CMD), then a needed
// sidecar lost (a CMD without it must not start), then ready.
func idle[T any](e *engine, during string, ready <-chan T) (value T, end idleEnd, ok bool) {
	for {
		select {
		case ev := <-e.doneChan():
			return value, idleEnd{done: &ev}, false
		default:
		}
		select {
		case received := <-e.signals:
			if end, ended := e.idleSignal(received.(unix.Signal), during); ended {
				return value, end, false
			}
			continue
		default:
		}
		if loss, ok := e.lossPending(); ok {
			return value, idleEnd{lost: &loss}, false
		}
		select {
		case value = <-ready:
			return value, idleEnd{}, true
		case loss := <-e.lostChan():
			if end, ended := e.idleSignalsFirst(during); ended {
				return value, end, false
			}
			return value, idleEnd{lost: &loss}, false
		case ev := <-e.doneChan():
			return value, idleEnd{done: &ev}, false
		case received := <-e.signals:
			if end, ended := e.idleSignal(received.(unix.Signal), during); ended {
				return value, end, false
			}
		}
	}
}

// idleSignal does what the signal means while no CMD runs; ended says the
// signal ends the wait. during names the wait in the log.
func (e *engine) idleSignal(sig unix.Signal, during string) (idleEnd, bool) {
	switch m, _ := e.meaning(sig, phaseIdle); m {
	case sigDone:
		ev := doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()}
		return idleEnd{done: &ev}, true
	case sigTerminate:
		event(e.log.Warn(), cmdline.EventInterrupted).Str("signal", signals.Name(sig)).Str("phase", during).
			Msg("signal ends tandem while no CMD runs")
		return idleEnd{signal: sig}, true
	}
	e.log.Debug().Str("signal", signals.Name(sig)).Str("phase", during).Msg("signal ignored: CMD is not running")
	return idleEnd{}, false
}
