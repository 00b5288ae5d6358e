package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// idleEnd is why a wait with no CMD running ended early.
type idleEnd struct {
	signal unix.Signal // a signal that ends tandem
	done   *doneEvent  // sidecar: the main was done
}

// idle waits while no CMD runs (main's --wait-for, a sidecar's restart
// backoff, main's announcement) until ready delivers. The signal policy for
// this time is idlePolicy; ok is false when the wait ended early.
func idle[T any](e *engine, phase string, ready <-chan T) (value T, end idleEnd, ok bool) {
	for {
		select {
		case value = <-ready:
			return value, idleEnd{}, true
		case ev := <-e.doneChan():
			return value, idleEnd{done: &ev}, false
		case received := <-e.signals:
			sig := received.(unix.Signal)
			switch e.idlePolicy(sig) {
			case idleDone:
				ev := doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()}
				return value, idleEnd{done: &ev}, false
			case idleTerminate:
				event(e.log.Warn(), cmdline.EventInterrupted).Str("signal", signals.Name(sig)).Str("phase", phase).
					Msg("signal ends tandem while no CMD runs")
				return value, idleEnd{signal: sig}, false
			}
			e.log.Debug().Str("signal", signals.Name(sig)).Str("phase", phase).Msg("signal ignored: CMD is not running")
		}
	}
}
