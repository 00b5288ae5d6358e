package supervisor

import (
	"context"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rs/zerolog"
	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/logstamp"
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
	// heldUntil: CMD exited while the termination signal was held
	// (--outlive-main: the pod is being deleted and the main still runs);
	// the hold's deadline, which a restart carries on. nil otherwise.
	heldUntil <-chan time.Time
}

// cmdRun is what the loop knows about one run of CMD.
type cmdRun struct {
	child       *process.Child
	stop        stopSequence
	held        bool             // the termination signal is held (--outlive-main)
	marksLeft   int              // a provisional hold: looks left for a main's termination mark
	outliveEnd  <-chan time.Time // when the held signal is released, or the next look for a mark
	requested   bool             // the stop is the main being done, not a failure
	failure     error
	terminating bool
	jobStopped  bool // CMD stopped by Ctrl-Z, and tandem with it
	lost        *sidecarLoss
}

// supervise owns CMD's life until it exits: only this goroutine signals CMD.
// Signals, the done condition, timers of the stop sequence and readiness
// failures are events of this one loop; next decides which of those pending
// at once comes first. heldUntil, when not nil, is the deadline of a
// termination signal held before this run began (a restart while the main
// drains).
func (e *engine) supervise(ctx context.Context, c *process.Child, heldUntil <-chan time.Time) ending {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &cmdRun{child: c, held: heldUntil != nil, outliveEnd: heldUntil, terminating: heldUntil != nil}
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
		case evOutlivePassed:
			if r.marksLeft > 0 {
				e.lookForMark(r)
			} else {
				e.releaseHeld(r)
			}
		case evJobStop:
			e.onJobStop(r, ev.signal)
		case evLoss:
			e.onSidecarLost(r, ev.loss)
		}
	}
}

// whileRunning is what the loop listens to while r runs.
func (e *engine) whileRunning(r *cmdRun, ready readiness) eventChans {
	return eventChans{exited: r.child.Exited, done: e.doneChan(), signals: e.signals, readyFailed: ready.failed,
		timer: r.stop.timer, quitDone: r.stop.quitDone, outliveEnd: r.outliveEnd, stopped: r.child.Stopped, lost: e.lostChan()}
}

// doneWhileRunning begins the requested stop; a done condition that cannot
// be known fails tandem.
func (e *engine) doneWhileRunning(ctx context.Context, r *cmdRun, ev doneEvent) {
	if ev.Err != nil {
		e.failWhileRunning(ctx, r, ev.Err)
		return
	}
	if r.requested {
		// A second source of the same news (the main peer's end after its
		// done signal): the stop under way goes on.
		event(e.log.Debug(), cmdline.EventDoneSeen).Str("source", ev.Source).Msg("main is done (again): the stop goes on")
		return
	}
	e.onDone(ctx, r, ev)
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

// onDone stops CMD for the main being done. When nothing comes before the
// stop signal (no --stop-delay, no quit URLs), the signal goes out first and
// the two lines that say so follow, stamped with its time: each line is an
// encode and a write(2) that CMD's stop need not wait for.
func (e *engine) onDone(ctx context.Context, r *cmdRun, ev doneEvent) {
	r.requested = true
	if e.stopsAtOnce(r) {
		sent := e.signalStop(r)
		e.logDone(ev, sent.at)
		e.logStopSent(r, sent)
		return
	}
	e.logDone(ev, time.Time{})
	e.beginStop(ctx, r, true)
}

// ended closes the run. A done condition pending with the exit makes it the
// requested stop it would have been a moment earlier (no restart, exit 0,
// the stopped file), without signalling a CMD that is gone. A readiness
// failure pending with it belonged to this run: said, not acted on.
func (e *engine) ended(r *cmdRun, ready readiness, st process.Status) ending {
	r.stop.end()
	e.logExit(r.child, st)
	e.stopLeftovers(r.child.Pid)
	if !r.requested && r.failure == nil {
		if ev, ok := e.take(eventChans{done: e.doneChan()}); ok && ev.done.Err != nil {
			e.logFailure(ev.done.Err, "tandem failed as CMD exited")
			r.failure = ev.done.Err
		} else if ok {
			e.logDone(ev.done, time.Time{})
			r.requested = true
		}
	}
	if ev, ok := e.take(eventChans{readyFailed: ready.failed}); ok {
		staleReadiness(e, ev.err)
	}
	e.settleMark(r)
	end := ending{status: st, requested: r.requested && r.failure == nil, err: r.failure, terminating: r.terminating, lost: r.lost}
	if r.held && r.outliveEnd != nil {
		end.heldUntil = r.outliveEnd
	}
	return end
}

// doneChan is the done condition's channel in sidecar mode, else nil (never
// ready).
func (e *engine) doneChan() <-chan doneEvent {
	if e.cfg.Mode != ModeSidecar {
		return nil
	}
	return e.done
}

// onSignal does what the signal means while CMD runs (signalTable).
func (e *engine) onSignal(ctx context.Context, r *cmdRun, sig unix.Signal) {
	m, terminating := e.meaning(sig, e.runPhase(r))
	if terminating {
		r.terminating = true
	}
	switch m {
	case sigDone:
		e.onDone(ctx, r, doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()})
	case sigHold:
		e.holdTermination(r, sig)
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
		e.limitTermination(r, sig)
		e.markTermination(sig)
	}
}

// limitTermination gives a main's CMD --termination-grace to exit after the
// pod's stop signal (stopsContainer: the signals the main marks its
// termination on), then SIGKILL: its done file is then written in time
// for the sidecars, which --outlive-main holds until then, to keep the
// rest of the pod's grace period for their own stop (docs/commands.md).
func (e *engine) limitTermination(r *cmdRun, sig unix.Signal) {
	grace := e.cfg.Main.TerminationGrace
	if e.cfg.Mode != ModeMain || grace <= 0 || r.stop.active() || !stopsContainer(sig) {
		return
	}
	r.stop.phase, r.stop.timer, r.stop.killAfter = stopSignaled, e.w.After(grace), grace
	event(e.log.Info(), cmdline.EventTerminationGrace).Str("signal", signals.Name(sig)).Dur("termination_grace_ms", grace).
		Msg("the pod is stopping: CMD has termination-grace to exit before SIGKILL")
}

// releaseHeld forwards the held termination signal once --outlive-main has
// passed. It cuts a --stop-delay short: the pod is going away now.
func (e *engine) releaseHeld(r *cmdRun) {
	r.outliveEnd = nil
	sig := e.cfg.Sidecar.TerminationSignal
	event(e.log.Info(), cmdline.EventSignalReleased).Str("signal", signals.Name(sig)).Dur("outlive_main_ms", e.cfg.Sidecar.OutliveMain).
		Msg("outlive-main passed before the main was done; forwarding the termination signal")
	e.forward(r.child, sig)
	if r.stop.phase == stopDelaying {
		r.stop.phase, r.stop.timer, r.stop.killAfter = stopSignaled, e.w.After(e.cfg.Grace), e.cfg.Grace
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

// logDone says the main is done; a non-zero at is the time the line
// reports (the stop signal's, sent before the line was written).
func (e *engine) logDone(ev doneEvent, at time.Time) {
	l := e.log.Info()
	if !at.IsZero() {
		l = logstamp.At(l, at)
	}
	l = event(l, cmdline.EventDoneSeen).Str("source", ev.Source)
	if ev.Path != "" {
		l = l.Str("path", ev.Path)
	}
	if ev.Status != nil {
		l = l.Int("main_exit_code", ev.Status.ExitCode).Str("main", ev.Status.Name)
		// A file without a time (written by hand) has no delay to tell.
		if !ev.Status.Time.IsZero() {
			l = l.Dur("after_file_time_ms", ev.SeenAt.Sub(ev.Status.Time))
		}
	}
	l.Msg("main is done")
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
