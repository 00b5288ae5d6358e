package supervisor

import (
	"context"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rs/zerolog"
	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/supervisor/process"
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
	child *process.Child
	stop  stopSequence
	// What the loop runs for the stop: its timer, its quit calls.
	timer       <-chan time.Time
	quitDone    chan struct{}
	cancelQuit  context.CancelFunc
	failure     error
	terminating bool
	jobStopped  bool // CMD stopped by Ctrl-Z, and tandem with it
	lost        *sidecarLoss
	// CMD exited: the loop's last phase waits for its leftovers
	// (leftovers.go), looking at the group when look fires.
	exited *process.Status
	look   <-chan time.Time
}

// supervise owns CMD's life until it exits and its group is empty: only
// this goroutine signals CMD. Signals, the done condition, timers of the
// stop sequence, readiness failures and, once CMD exited, the reaper's
// news of its leftovers are events of this one loop; next decides which of
// those pending at once comes first. A run that begins under the hold (a
// restart while the main drains) is one the pod is leaving.
func (e *engine) supervise(ctx context.Context, c *process.Child) ending {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &cmdRun{child: c, stop: newStopSequence(e.stop, c.Pid, e.log), terminating: e.deletion.held()}
	ready := e.ready.start(ctx, e.w, e.log)
	defer ready.stop()
	for {
		ev := e.next(e.whileRunning(r, ready))
		switch ev.kind {
		case evExit:
			if !e.exited(ctx, r, ev.status) {
				return e.ended(ctx, r, ready)
			}
		case evReaped, evLeftoversLook: // the group is looked at below
		case evDone:
			e.doneWhileRunning(ctx, r, ev.done)
		case evSignal:
			e.onSignal(ctx, r, ev.signal)
		case evReadyFailed:
			e.failWhileRunning(ctx, r, ev.err)
		case evTimer:
			r.timer = nil
			e.apply(ctx, r, r.stop.timerFired())
		case evQuitAnswered:
			r.quitDone = nil // closed: answered once
			e.apply(ctx, r, r.stop.quitAnswered())
		case evHoldTimer:
			e.apply(ctx, r, e.deletion.whileRunning(e.deletion.tick(), &r.stop))
		case evJobStop:
			onJobStop(e.w.terminal, e.log, r, ev.signal)
		case evLoss:
			e.onSidecarLost(ctx, r, ev.loss)
		}
		if r.exited != nil {
			if !e.w.GroupAlive(r.child.Pid) {
				return e.ended(ctx, r, ready)
			}
			r.look = e.w.After(leftoverPollInterval)
		}
	}
}

// whileRunning is what the loop listens to while r runs; once CMD exited,
// only what tells of its leftovers and the stop's timer.
func (e *engine) whileRunning(r *cmdRun, ready readiness) eventChans {
	if r.exited != nil {
		return eventChans{reaped: e.w.reaped, look: r.look, timer: r.timer}
	}
	return eventChans{exited: r.child.Exited, done: e.done, signals: e.signals, readyFailed: ready.failed,
		timer: r.timer, quitDone: r.quitDone, holdTimer: e.deletion.holdTimer(), stopped: r.child.Stopped, lost: e.lost}
}

// failWhileRunning: tandem failed while CMD runs (the ready file cannot be
// written, a done file cannot be looked for): stop CMD, exit 125.
func (e *engine) failWhileRunning(ctx context.Context, r *cmdRun, err error) {
	logFailure(e.log, err, "tandem failed; stopping CMD")
	r.failure = err
	e.apply(ctx, r, r.stop.begin(false))
}

// doneWhileRunning begins the requested stop; a done condition that cannot
// be known fails tandem.
func (e *engine) doneWhileRunning(ctx context.Context, r *cmdRun, ev doneEvent) {
	if ev.Err != nil {
		e.failWhileRunning(ctx, r, ev.Err)
		return
	}
	e.apply(ctx, r, r.stop.doneSeen(ev))
}

func staleReadiness(e *engine, err error) {
	event(e.log.Warn(), cmdline.EventFailed).Err(err).Msg("the ready file could not be written, but CMD had already exited")
}

// exited: CMD exited. The quit calls end, and what is left of its group,
// if anything (leftovers says so), gets the stop's last phase.
func (e *engine) exited(ctx context.Context, r *cmdRun, st process.Status) (leftovers bool) {
	r.exited = &st
	r.endQuit(e.w.After)
	e.logExit(r.child, st)
	if !e.w.GroupAlive(r.child.Pid) {
		return false
	}
	e.apply(ctx, r, r.stop.leftovers())
	return true
}

// ended closes the run once CMD's group is empty. A done condition pending with the exit makes it the
// requested stop it would have been a moment earlier (no restart, exit 0,
// the stopped file), without signalling a CMD that is gone. A readiness
// failure pending with it belonged to this run: said, not acted on.
func (e *engine) ended(ctx context.Context, r *cmdRun, ready readiness) ending {
	for _, ev := range e.withExit(eventChans{done: e.done, readyFailed: ready.failed}) {
		switch {
		case ev.kind == evReadyFailed:
			staleReadiness(e, ev.err)
		case r.stop.mainDone() || r.failure != nil: // a done condition after the stop began: nothing new
		case ev.done.Err != nil:
			logFailure(e.log, ev.done.Err, "tandem failed as CMD exited")
			r.failure = ev.done.Err
		default:
			r.stop.doneWithExit(ev.done)
		}
	}
	e.apply(ctx, r, e.deletion.whileRunning(e.deletion.settle(), &r.stop))
	return ending{status: *r.exited, requested: r.stop.mainDone() && r.failure == nil, err: r.failure, terminating: r.terminating, lost: r.lost}
}

// onSignal does what the signal means while CMD runs (signalTable).
func (e *engine) onSignal(ctx context.Context, r *cmdRun, sig unix.Signal) {
	if ev, deleted := e.deletion.afterMains(e.policy.kindOf(sig) == kindTermination); deleted && !r.stop.mainDone() {
		r.terminating, e.stopAsked = true, true
		e.apply(ctx, r, r.stop.done(ev))
		return
	}
	m, terminating := e.policy.meaning(sig, runPhase(r, e.deletion))
	if terminating {
		r.terminating, e.stopAsked = true, true
	}
	switch m {
	case sigDone:
		e.apply(ctx, r, r.stop.done(doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()}))
	case sigHold:
		e.apply(ctx, r, e.deletion.whileRunning(e.deletion.take(), &r.stop))
	case sigAbsorb:
		event(e.log.Info(), cmdline.EventSignalAbsorbed).Str("signal", signals.Name(sig)).
			Msg("termination signal during a requested stop: not forwarded, the stop under way goes on")
	case sigDrop:
		event(e.log.Debug(), cmdline.EventSignalDropped).Str("signal", signals.Name(sig)).Msg("signal not forwarded (--rewrite to 0)")
	default:
		if sig == unix.SIGCONT && r.jobStopped {
			onJobContinue(e.w.terminal, e.log, r)
		}
		e.apply(ctx, r, []action{{kind: actForward, signal: sig}})
		if grace := e.deletion.terminationGrace(sig, r.stop.active()); grace > 0 {
			e.apply(ctx, r, r.stop.killAfterGrace(grace))
		}
		e.deletion.markTermination(sig)
	}
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
