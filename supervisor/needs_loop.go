package supervisor

import (
	"context"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/logstamp"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// A needed sidecar lost is one more event of the two loops: idle (the
// main's wait) and supervise (CMD runs). Pending at once with others, it
// ranks last: CMD's exit first (the main was done first: its own end
// stands), then signals (a main already stopping on its termination signal
// keeps its reason; one interrupted during the wait ends as interrupted),
// then the loss.

// lostChan is the needed sidecars' losses while the main is not done, else
// nil (never ready).
func (e *engine) lostChan() <-chan sidecarLoss {
	if e.cfg.Mode != ModeMain || e.mainDone {
		return nil
	}
	return e.lost
}

// lossPending is a loss if one is already there.
func (e *engine) lossPending() (sidecarLoss, bool) {
	select {
	case loss := <-e.lostChan():
		return loss, true
	default:
		return sidecarLoss{}, false
	}
}

// waitAll waits, within one --wait-timeout, for --wait-for's conditions and
// the needed sidecars at once.
func (e *engine) waitAll(ctx context.Context) waitResult {
	m := e.cfg.Main
	ctx, cancel := context.WithTimeout(ctx, m.WaitTimeout)
	defer cancel()
	missing := make(chan []string, 1)
	go func() {
		if e.needs == nil {
			missing <- nil
			return
		}
		missing <- e.needs.wait(ctx, m.WaitInterval)
	}()
	pending, err := probe.Wait(ctx, e.w.prober, m.WaitFor, m.WaitInterval, 0, e.log)
	r := waitResult{pending: pending, needs: <-missing, err: err}
	if r.err == nil && len(r.needs) > 0 {
		r.err = ctx.Err()
	}
	return r
}

// stillMissing names what the wait did not see hold.
func stillMissing(r waitResult) string {
	names := []string{}
	if len(r.pending) > 0 {
		names = append(names, probe.Names(r.pending))
	}
	for _, ready := range r.needs {
		names = append(names, cmdline.FlagNeeds+":"+ready)
	}
	return strings.Join(names, ", ")
}

// idleSignalsFirst takes the signals pending with a loss during the wait:
// one that ends tandem outranks the loss.
func (e *engine) idleSignalsFirst(during string) (idleEnd, bool) {
	for {
		select {
		case received := <-e.signals:
			if end, ended := e.idleSignal(received.(unix.Signal), during); ended {
				return end, true
			}
		default:
			return idleEnd{}, false
		}
	}
}

// lostWaiting: a needed sidecar was lost before CMD started: CMD never
// starts, the main ends at once (exit 1).
func (e *engine) lostWaiting(loss sidecarLoss) outcome {
	event(e.log.Error(), cmdline.EventSidecarLost).Str("sidecar", loss.sidecar).Str("ready_file", loss.ready).
		Msg("a needed sidecar was lost before CMD started; CMD not started")
	return sidecarLost(loss, outcome{})
}

// takeLoss stops CMD for a needed sidecar lost, unless CMD's exit is
// already there; signals pending with the loss are taken first.
func (e *engine) takeLoss(ctx context.Context, r *cmdRun, ready readiness, loss sidecarLoss) (ending, bool) {
	if st, gone := exitPending(r.child); gone {
		return e.ended(r, ready, st), true
	}
	for pending := true; pending; {
		select {
		case received := <-e.signals:
			e.onSignal(ctx, r, received.(unix.Signal))
		default:
			pending = false
		}
	}
	e.onSidecarLost(r, loss)
	return ending{}, false
}

// onSidecarLost stops CMD (stop signal, --grace, SIGKILL) and makes the
// loss the main's reason, unless the main is already stopping: then it is
// said, and the reason stays. The stop signal goes out before the line.
func (e *engine) onSidecarLost(r *cmdRun, loss sidecarLoss) {
	if r.terminating || r.lost != nil || r.stop.active() {
		event(e.log.Info(), cmdline.EventSidecarLost).Str("sidecar", loss.sidecar).Str("ready_file", loss.ready).
			Msg("a needed sidecar ended while the main was already stopping; the main's reason is unchanged")
		return
	}
	r.lost = &loss
	sent := e.signalStop(r)
	event(logstamp.At(e.log.Error(), sent.at), cmdline.EventSidecarLost).Str("sidecar", loss.sidecar).Str("ready_file", loss.ready).
		Msg("a needed sidecar was lost; stopping CMD")
	e.logStopSent(r, sent)
}
