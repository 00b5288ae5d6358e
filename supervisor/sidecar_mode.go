package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// sidecarState is what only a sidecar's engine keeps.
type sidecarState struct {
	// done carries the done condition from its sources (done files,
	// lifelines); nil, never ready, in the other modes.
	done      chan doneEvent
	newSource func() (doneSource, error) // builds the done sources
	// stopAsked: a signal that says the container is going away reached
	// tandem (forwarded, held or absorbed), so --await-termination has
	// nothing left to wait for.
	stopAsked bool
}

func newSidecarState() sidecarState {
	return sidecarState{done: make(chan doneEvent, 1)}
}

// runSidecar: CMD runs until the main is done, is restarted per --restart,
// and the termination signal may be held (--outlive-main); after a
// requested stop, --await-termination keeps the container up until its
// stop signal.
func (e *engine) runSidecar(ctx context.Context) outcome {
	out := e.runSidecarCmd(ctx)
	if e.cfg.Sidecar.AwaitTermination && out.reason == statusfile.ReasonStopped && !e.stopAsked {
		e.awaitStop()
	}
	return out
}

// awaitStop waits, CMD stopped, for a signal that stops the container. The
// kubelet starts a native sidecar again when its container ends before it
// has seen the mains' containers end (a main's runtime can report its exit
// a second after the done file): a restart that shows in restartCount and
// that a Job under restartPolicy OnFailure counts against its backoffLimit.
// The kubelet's own stop, once it has seen them end, is the signal.
func (e *engine) awaitStop() {
	event(e.log.Info(), cmdline.EventAwaitingStop).Msg("CMD stopped; the container waits for its stop signal (--await-termination)")
	for {
		ev := e.next(eventChans{signals: e.signals})
		if m, _ := e.policy.meaning(ev.signal, phaseAwaiting); m == sigRelease {
			e.log.Debug().Str("signal", signals.Name(ev.signal)).Msg("the container's stop: exiting")
			return
		}
		e.log.Debug().Str("signal", signals.Name(ev.signal)).Msg("signal ignored: CMD has stopped")
	}
}

// runSidecarCmd is the sidecar's run of CMD, to its outcome.
func (e *engine) runSidecarCmd(ctx context.Context) outcome {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Files it must write, proved before CMD starts.
	if err := writableFiles(cmdline.FlagStoppedFile, e.cfg.Sidecar.StoppedFile, cmdline.FlagReadyFile, e.cfg.Sidecar.ReadyFile); err != nil {
		return pathFailed(e.log, err)
	}
	defer holdReadyLifeline(e.cfg.Sidecar.ReadyFile, e.log)()
	if path := e.cfg.Sidecar.StoppedFile; path != "" {
		_ = statusfile.Unlink(path) // a sidecar that starts again has not stopped
		e.lifeline = holdLifeline(path, lifeline.KindStopped, e.log)
	}
	source, err := e.newSource()
	if err != nil {
		return failed(err)
	}
	if ev, done := source.check(); done {
		if ev.Err != nil {
			return pathFailed(e.log, ev.Err)
		}
		logDone(e.log, ev, time.Time{})
		event(e.log.Info(), cmdline.EventNotStarted).Msg("main was done before the sidecar started; CMD not started")
		return e.sidecarOutcome(ending{requested: true})
	}
	// Not closed on the way out: the exit releases it, and closing it first
	// would only delay the exit.
	go source.run(ctx, e.done)
	return e.runAndRestart(ctx)
}

// runAndRestart runs CMD, and again per --restart with its backoff and
// budget, until the main is done or the pod goes away.
func (e *engine) runAndRestart(ctx context.Context) outcome {
	var delays restartBackoff
	var budget restartBudget
	for {
		c, err := e.start()
		if err != nil {
			return startFailed(err)
		}
		end := e.supervise(ctx, c)
		// While the termination signal is held the main still drains and
		// still needs its sidecar: a crash then is restarted too, within
		// the hold's deadline. After the pod's signal came otherwise, not:
		// a proxy that came back would run until the kubelet's SIGKILL.
		if end.err != nil || end.requested || (end.terminating && !e.deletion.held()) || !e.shouldRestart(end.status) {
			return e.sidecarOutcome(end)
		}
		if spent := budget.exited(e.w.Now(), end.status, e.cfg.Sidecar.MaxRestarts, e.cfg.Sidecar.RestartWindow); spent {
			return e.restartLimit(end.status, budget)
		}
		delay := delays.next(e.w.Now().Sub(c.Started))
		msg := "CMD exited before the main was done; restarting"
		if e.cfg.Sidecar.Restart == RestartDuringDeletion {
			msg = "CMD exited while the pod is being deleted and a main drains; restarting"
		}
		event(e.log.Warn(), cmdline.EventRestarting).Int("exit_code", end.status.ExitCode()).Dur("delay_ms", delay).Msg(msg)
		if stop, ok := e.idle("restart-backoff", eventChans{timer: e.w.After(delay)}); !ok {
			return e.endedInBackoff(stop)
		}
	}
}

// endedInBackoff is how a restart backoff that did not run out ends
// tandem: the main done, or a signal (the hold's, once it would go on).
func (e *engine) endedInBackoff(stop idleEnd) outcome {
	switch {
	case stop.done != nil && stop.done.Err != nil:
		return pathFailed(e.log, stop.done.Err)
	case stop.done != nil:
		logDone(e.log, *stop.done, time.Time{})
		return e.sidecarOutcome(ending{requested: true})
	}
	return interrupted(stop.signal)
}

// sidecarOutcome is the run's outcome; after a requested stop the stopped
// file, if any, tells the sidecars that wait for this one. A sidecar whose
// main was done while no CMD ran (before the first start, during a restart
// backoff) has stopped too: without the file, a sidecar waiting on it under
// --stop-when success would take the released lifeline for a loss and run on.
func (e *engine) sidecarOutcome(end ending) outcome {
	out := endingOutcome(e.log, end, e.cfg.SuccessCodes)
	if path := e.cfg.Sidecar.StoppedFile; path != "" && end.requested && end.err == nil {
		// exitCode is this container's, as in a done file: a sidecar under
		// --stop-when success that waits on it must see a success.
		f := statusfile.File{Name: e.cfg.Name, Event: statusfile.EventStopped, Reason: statusfile.ReasonStopped,
			ExitCode: out.code}
		if err := e.w.files.Write(path, f); err != nil {
			event(e.log.Error(), cmdline.EventWriteFailed).Err(err).Str("path", path).Msg("cannot write the stopped file")
			return failed(err)
		}
		event(e.log.Info(), cmdline.EventStoppedWritten).Str("path", path).Msg("stopped file written")
	}
	e.lifeline.Release()
	return out
}

func (e *engine) shouldRestart(st process.Status) bool {
	switch e.cfg.Sidecar.Restart {
	case RestartAlways:
		return true
	case RestartOnFailure:
		return st.ExitCode() != 0
	case RestartDuringDeletion:
		return e.deletion.podDeleting()
	}
	return false
}

const (
	firstRestartDelay = time.Second
	maxRestartDelay   = time.Minute
	// A CMD that ran this long is considered healthy: the backoff starts over.
	restartResetAfter = time.Minute
)

// restartBackoff yields 1s, 2s, 4s … 60s, and starts over after a long run.
type restartBackoff struct{ last time.Duration }

func (b *restartBackoff) next(ran time.Duration) time.Duration {
	if ran >= restartResetAfter || b.last == 0 {
		b.last = firstRestartDelay
	} else {
		b.last = min(2*b.last, maxRestartDelay)
	}
	return b.last
}

// restartBudget counts the exits before the main was done that --restart
// restarts (with always, clean ones too) within --restart-window.
type restartBudget struct{ exits []budgetExit }

type budgetExit struct {
	at    time.Time
	crash bool // not a clean exit: a non-zero code or a signal
}

// exited records CMD's exit with st at now; it says whether the budget is
// spent: more than max exits within window (max 0: never).
func (b *restartBudget) exited(now time.Time, st process.Status, max int, window time.Duration) bool {
	b.exits = append(b.exits, budgetExit{at: now, crash: st.ExitCode() != 0})
	for len(b.exits) > 0 && now.Sub(b.exits[0].at) > window {
		b.exits = b.exits[1:]
	}
	return max > 0 && len(b.exits) > max
}

// crashes is how many of the exits within the window were crashes.
func (b *restartBudget) crashes() int {
	n := 0
	for _, x := range b.exits {
		if x.crash {
			n++
		}
	}
	return n
}

// restartLimit gives up on a CMD that exited more than --max-restarts
// times within --restart-window, rather than restart it for ever: tandem
// ends with CMD's last code (never 0: a sidecar given up on is no success),
// which fails the pod with a reason, and the mains that need this sidecar
// see it lost. Clean exits are called exits, not crashes.
func (e *engine) restartLimit(st process.Status, budget restartBudget) outcome {
	sc := e.cfg.Sidecar
	err := fmt.Errorf("CMD exited %d times within %s (--%s %d), %d of them cleanly",
		len(budget.exits), sc.RestartWindow, cmdline.FlagMaxRestarts, sc.MaxRestarts, len(budget.exits)-budget.crashes())
	if budget.crashes() == len(budget.exits) {
		err = fmt.Errorf("CMD crashed %d times within %s (--%s %d)", len(budget.exits), sc.RestartWindow, cmdline.FlagMaxRestarts, sc.MaxRestarts)
	}
	event(e.log.Error(), cmdline.EventRestartLimit).Int("exits", len(budget.exits)).Int("crashes", budget.crashes()).
		Dur("restart_window_ms", sc.RestartWindow).Int("exit_code", st.ExitCode()).Msgf("%v: giving up", err)
	e.lifeline.Release()
	out := restartLimited(st, e.cfg.SuccessCodes, err)
	e.sayGivenUp(out)
	return out
}

// sayGivenUp writes, beside the ready file, that this sidecar gave up: a
// main that starts after it ended fails at once (needs.go).
func (e *engine) sayGivenUp(out outcome) {
	ready := e.cfg.Sidecar.ReadyFile
	if ready == "" {
		return
	}
	f := statusfile.File{Name: e.cfg.Name, Event: statusfile.EventStopped, ExitCode: out.code, Signal: out.signal, Reason: out.reason}
	if err := e.w.files.Write(givenUpPath(ready), f); err != nil {
		event(e.log.Warn(), cmdline.EventWriteFailed).Err(err).Str("path", givenUpPath(ready)).
			Msg("cannot say beside the ready file that this sidecar gave up; a main that starts later waits for it")
	}
}
