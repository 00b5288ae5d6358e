package supervisor

import (
	"context"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rs/zerolog"
	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// ending is how one run of CMD ended.
type ending struct {
	status    process.Status
	requested bool  // sidecar: tandem stopped CMD because the main was done
	err       error // tandem failed while CMD ran (e.g. cannot write the ready file)
	// terminating: the pod is going away (the termination signal, SIGTERM or
	// SIGINT arrived while CMD ran), so a sidecar must not restart CMD: a
	// proxy that came back would run until the kubelet's SIGKILL. Not HUP
	// or QUIT unless they are the termination signal: those are also reload
	// and dump requests, after which a crash still deserves a restart.
	terminating bool
	lost        *sidecarLoss // main --needs: CMD was stopped because a needed sidecar was lost
}

// cmdRun is what the loop knows about one run of CMD.
type cmdRun struct {
	child       *process.Child
	stop        stopSequence
	requested   bool // the stop is the main being done, not a failure
	failure     error
	terminating bool
	jobStopped  bool // CMD stopped by Ctrl-Z, and tandem with it
	lost        *sidecarLoss
}

// supervise owns CMD's life until it exits: only this goroutine signals CMD.
// Signals, the done condition, timers of the stop sequence and readiness
// failures are events of this one loop; next decides which of those pending
// at once comes first. A run that begins under the hold (a restart while
// the main drains) is one the pod is leaving.
func (e *engine) supervise(ctx context.Context, c *process.Child) ending {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &cmdRun{child: c, terminating: e.deletion.held()}
	ready := e.startReadiness(ctx)
	defer ready.stop()
	for {
		ev := e.next(e.whileRunning(r, ready))
		switch ev.kind {
		case evExit:
			return e.ended(r, ready, ev.status)
		case evDone:
			e.doneWhileRunning(ctx, r, ev.done)
		case evSignal:
			e.onSignal(ctx, r, ev.signal)
		case evReadyFailed:
			e.failWhileRunning(ctx, r, ev.err)
		case evTimer:
			e.stopTimerFired(ctx, r)
		case evQuitAnswered:
			e.quitFinished(r)
		case evHoldTimer:
			e.holdStepped(e.deletion.tick(), r, "")
		case evJobStop:
			e.onJobStop(r, ev.signal)
		case evLoss:
			e.onSidecarLost(r, ev.loss)
		}
	}
}

// whileRunning is what the loop listens to while r runs.
func (e *engine) whileRunning(r *cmdRun, ready readiness) eventChans {
	return eventChans{exited: r.child.Exited, done: e.done, signals: e.signals, readyFailed: ready.failed,
		timer: r.stop.timer, quitDone: r.stop.quitDone, holdTimer: e.deletion.holdTimer(), stopped: r.child.Stopped, lost: e.lost}
}

// failWhileRunning: tandem failed while CMD runs (the ready file cannot be
// written, a done file cannot be looked for): stop CMD, exit 125.
func (e *engine) failWhileRunning(ctx context.Context, r *cmdRun, err error) {
	e.logFailure(err, "tandem failed; stopping CMD")
	r.failure = err
	e.beginStop(ctx, r, false)
}

func staleReadiness(e *engine, err error) {
	event(e.log.Warn(), cmdline.EventFailed).Err(err).Msg("the ready file could not be written, but CMD had already exited")
}

// ended closes the run. A done condition pending with the exit makes it the
// requested stop it would have been a moment earlier (no restart, exit 0,
// the stopped file), without signalling a CMD that is gone. A readiness
// failure pending with it belonged to this run: said, not acted on.
func (e *engine) ended(r *cmdRun, ready readiness, st process.Status) ending {
	r.stop.end(e.w.After)
	e.logExit(r.child, st)
	e.stopLeftovers(r.child.Pid)
	for _, ev := range e.withExit(eventChans{done: e.done, readyFailed: ready.failed}) {
		switch {
		case ev.kind == evReadyFailed:
			staleReadiness(e, ev.err)
		case r.requested || r.failure != nil: // a done condition after the stop began: nothing new
		case ev.done.Err != nil:
			e.logFailure(ev.done.Err, "tandem failed as CMD exited")
			r.failure = ev.done.Err
		default:
			e.logDone(ev.done, time.Time{})
			r.requested = true
		}
	}
	e.holdStepped(e.deletion.settle(), r, "")
	return ending{status: st, requested: r.requested && r.failure == nil, err: r.failure, terminating: r.terminating, lost: r.lost}
}

// onSignal does what the signal means while CMD runs (signalTable).
func (e *engine) onSignal(ctx context.Context, r *cmdRun, sig unix.Signal) {
	if ev, deleted := e.deletion.afterMains(e.kindOf(sig) == kindTermination); deleted && !r.requested {
		r.terminating = true
		e.onDone(ctx, r, ev)
		return
	}
	m, terminating := e.meaning(sig, e.runPhase(r))
	if terminating {
		r.terminating = true
	}
	switch m {
	case sigDone:
		e.onDone(ctx, r, doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()})
	case sigHold:
		e.holdStepped(e.deletion.take(), r, "")
	case sigAbsorb:
		event(e.log.Info(), cmdline.EventSignalAbsorbed).Str("signal", signals.Name(sig)).
			Msg("termination signal during a requested stop: not forwarded, the stop under way goes on")
	case sigDrop:
		event(e.log.Debug(), cmdline.EventSignalDropped).Str("signal", signals.Name(sig)).Msg("signal not forwarded (--rewrite to 0)")
	default:
		if sig == unix.SIGCONT && r.jobStopped {
			e.onJobContinue(r)
		}
		e.forward(r.child, sig)
		if grace := e.deletion.terminationGrace(sig, r.stop.active()); grace > 0 {
			e.killAfter(r, grace)
		}
		e.deletion.markTermination(sig)
	}
}

func (e *engine) forward(c *process.Child, sig unix.Signal) {
	to := sig
	if rewritten, ok := e.cfg.Rewrite[sig]; ok {
		to = rewritten
	}
	if err := e.w.Signal(c.Pid, to, !e.cfg.ChildOnly); err != nil {
		event(e.log.Warn(), cmdline.EventSignalFailed).Err(err).Str("signal", signals.Name(to)).Msg("cannot forward signal")
		return
	}
	event(e.log.Debug(), cmdline.EventSignalForwarded).Str("received", signals.Name(sig)).Str("sent", signals.Name(to)).Int("pid", c.Pid).
		Bool("group", !e.cfg.ChildOnly).Msg("signal forwarded")
}

func (e *engine) logExit(c *process.Child, st process.Status) {
	level := zerolog.InfoLevel
	if st.Signal != 0 && e.cfg.Mode == ModeRun {
		// run logs at warn by default, quiet when all goes well: a CMD
		// killed by a signal is not that.
		level = zerolog.WarnLevel
	}
	l := event(e.log.WithLevel(level), cmdline.EventCmdExited).Int("pid", c.Pid).Int("exit_code", st.ExitCode())
	if st.Signal != 0 {
		l = l.Str("signal", signals.Name(st.Signal))
	}
	l.Dur("ran_ms", e.w.Now().Sub(c.Started)).Msg("CMD exited")
}
