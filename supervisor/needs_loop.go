package supervisor

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// A needed sidecar lost is one more event of the two loops, idle (the
// main's wait) and supervise (CMD runs); its rank is evLoss's.

// waitAll waits, within one --wait-timeout, for --wait-for's conditions
// (probed with prober) and the needed sidecars (ns, nil without --needs)
// at once.
func waitAll(ctx context.Context, m MainConfig, ns *needs, prober probe.Prober, log zerolog.Logger) waitResult {
	ctx, cancel := context.WithTimeout(ctx, m.WaitTimeout)
	defer cancel()
	missing := make(chan []string, 1)
	go func() {
		if ns == nil {
			missing <- nil
			return
		}
		missing <- ns.wait(ctx, m.WaitInterval)
	}()
	pending, err := probe.Wait(ctx, prober, m.WaitFor, m.WaitInterval, 0, log)
	r := waitResult{pending: pending, needs: <-missing, err: err}
	if r.err == nil && len(r.needs) > 0 {
		r.err = ctx.Err()
	}
	return r
}

// stillMissing lists what the wait did not see hold: the conditions with
// their last reason, then each needed ready file no live sidecar wrote.
func stillMissing(r waitResult) []probe.Pending {
	pending := r.pending
	for _, ready := range r.needs {
		pending = append(pending, probe.Unmet(cmdline.FlagNeeds+":"+ready, "no ready file from a live sidecar"))
	}
	return pending
}

// lostWaiting: a needed sidecar was lost before CMD started: CMD never
// starts, the main ends at once (exit 1).
func lostWaiting(log zerolog.Logger, loss sidecarLoss) outcome {
	event(log.Error(), cmdline.EventSidecarLost).Str("sidecar", loss.sidecar).Str("ready_file", loss.ready).
		Msg("a needed sidecar was lost before CMD started; CMD not started")
	return sidecarLost(loss, outcome{})
}

// onSidecarLost stops CMD (stop signal, --grace, SIGKILL) and makes the
// loss the main's reason, unless the main is already stopping: then it is
// said, and the reason stays. The stop signal goes out before the line.
func (e *engine) onSidecarLost(ctx context.Context, r *cmdRun, loss sidecarLoss) {
	if r.terminating || r.lost != nil || r.stop.active() {
		event(e.log.Info(), cmdline.EventSidecarLost).Str("sidecar", loss.sidecar).Str("ready_file", loss.ready).
			Msg("a needed sidecar ended while the main was already stopping; the main's reason is unchanged")
		return
	}
	r.lost = &loss
	e.apply(ctx, r, r.stop.lost(loss))
}
