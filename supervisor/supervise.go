package supervisor

import (
	"context"
	"time"

	"golang.org/x/sys/unix"

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
}

// cmdRun is what the loop knows about one run of CMD.
type cmdRun struct {
	child       *process.Child
	stop        stopSequence
	held        bool             // the termination signal is held (--outlive-main)
	outliveEnd  <-chan time.Time // when the held signal is released
	requested   bool             // the stop is the main being done, not a failure
	failure     error
	terminating bool
	jobStopped  bool // CMD stopped by Ctrl-Z, and tandem with it
}

// supervise owns CMD's life until it exits: only this goroutine signals CMD.
// Signals, the done condition, timers of the stop sequence and readiness
// failures are events in this one select.
func (e *engine) supervise(ctx context.Context, c *process.Child) ending {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &cmdRun{child: c}
	ready := e.startReadiness(ctx)
	defer ready.stop()
	for {
		select {
		case received := <-e.signals:
			e.onSignal(ctx, r, received.(unix.Signal)) // os/signal delivers syscall.Signal, which unix.Signal is
		case ev := <-e.doneChan():
			e.logDone(ev)
			r.requested = true
			e.beginStop(ctx, r, true)
		case <-r.stop.timer:
			e.stopTimerFired(ctx, r)
		case <-r.stop.quitDone:
			e.quitFinished(r)
		case <-r.outliveEnd:
			e.releaseHeld(r)
		case err := <-ready.failed:
			event(e.log.Error(), cmdline.EventFailed).Err(err).Msg("tandem failed; stopping CMD")
			r.failure = err
			e.beginStop(ctx, r, false)
		case sig := <-c.Stopped:
			e.onJobStop(r, sig)
		case st := <-c.Exited:
			r.stop.end()
			e.logExit(c, st)
			e.stopLeftovers(c.Pid)
			return ending{status: st, requested: r.requested && r.failure == nil, err: r.failure, terminating: r.terminating}
		}
	}
}

// doneChan is the done condition's channel in sidecar mode, else nil (never
// ready).
func (e *engine) doneChan() <-chan doneEvent {
	if e.cfg.Mode != ModeSidecar {
		return nil
	}
	return e.done
}

// onSignal applies the signal policy while CMD runs.
func (e *engine) onSignal(ctx context.Context, r *cmdRun, sig unix.Signal) {
	if e.isTerminating(sig) {
		r.terminating = true
	}
	switch e.policy(sig, r) {
	case actDone:
		e.logDone(doneEvent{Source: sourceDoneSignal, SeenAt: e.w.Now()})
		r.requested = true
		e.beginStop(ctx, r, true)
	case actHold:
		r.held = true
		r.outliveEnd = e.w.After(e.cfg.Sidecar.OutliveMain)
		event(e.log.Info(), cmdline.EventSignalHeld).Str("signal", signals.Name(sig)).Dur("outlive_main_ms", e.cfg.Sidecar.OutliveMain).
			Msg("termination signal held: CMD keeps running until the main is done or outlive-main passes")
	case actAbsorb:
		event(e.log.Info(), cmdline.EventSignalAbsorbed).Str("signal", signals.Name(sig)).
			Msg("termination signal during a requested stop: not forwarded, the stop under way goes on")
	case actDrop:
		event(e.log.Debug(), cmdline.EventSignalDropped).Str("signal", signals.Name(sig)).Msg("signal not forwarded (--rewrite to 0)")
	default:
		if sig == unix.SIGCONT && r.jobStopped {
			e.onJobContinue(r)
		}
		e.forward(r.child, sig)
	}
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
		r.stop.phase, r.stop.timer = stopSignaled, e.w.After(e.cfg.Grace)
	}
}

func (e *engine) forward(c *process.Child, sig unix.Signal) {
	to := sig
	if rewritten, ok := e.cfg.Rewrite[sig]; ok {
		to = rewritten
	}
	if err := e.w.Signal(c.Pid, to, !e.cfg.ChildOnly); err != nil {
		e.log.Warn().Err(err).Str("signal", signals.Name(to)).Msg("cannot forward signal")
		return
	}
	event(e.log.Debug(), cmdline.EventSignalForwarded).Str("received", signals.Name(sig)).Str("sent", signals.Name(to)).Int("pid", c.Pid).
		Bool("group", !e.cfg.ChildOnly).Msg("signal forwarded")
}

func (e *engine) logDone(ev doneEvent) {
	l := event(e.log.Info(), cmdline.EventDoneSeen).Str("source", ev.Source)
	if ev.Path != "" {
		l = l.Str("path", ev.Path)
	}
	if ev.Status != nil {
		l = l.Int("main_exit_code", ev.Status.ExitCode).Str("main", ev.Status.Name).
			Dur("after_file_time_ms", ev.SeenAt.Sub(ev.Status.Time))
	}
	l.Msg("main is done")
}

func (e *engine) logExit(c *process.Child, st process.Status) {
	l := event(e.log.Info(), cmdline.EventCmdExited).Int("pid", c.Pid).Int("exit_code", st.ExitCode())
	if st.Signal != 0 {
		l = l.Str("signal", signals.Name(st.Signal))
	}
	l.Dur("ran_ms", e.w.Now().Sub(c.Started)).Msg("CMD exited")
}
