package supervisor

import (
	"context"
	"time"

	"golang.org/x/sys/unix"
)

// runSidecar: CMD runs until the main is done, is restarted per --restart,
// and an outside SIGTERM may be held (--outlive-main).
func (s *supervisor) runSidecar(ctx context.Context) outcome {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if len(s.cfg.DoneFiles) > 0 {
		watcher, err := newDoneFileWatcher(s.cfg.DoneFiles, s.cfg.StopWhen, s.cfg.PollInterval, s.log)
		if err != nil {
			return outcome{code: ExitInternal, reason: ReasonError, err: err}
		}
		if ev, done := watcher.check(); done {
			s.logDone(ev)
			s.log.Info().Msg("main was done before the sidecar started; CMD not started")
			return outcome{code: 0, reason: ReasonStopped}
		}
		// Not closed on the way out: the exit releases it, and closing it
		// first would only delay the exit (run closes it once done is seen).
		go watcher.run(ctx, s.doneEvents)
	}
	var delays restartBackoff
	for {
		c, err := s.start()
		if err != nil {
			return outcome{code: ExitCodeOf(err), reason: ReasonStartFailed, err: err}
		}
		end := s.supervise(ctx, c)
		if end.err != nil || end.requested || end.terminating || !s.shouldRestart(end.status) {
			return s.endingOutcome(end)
		}
		delay := delays.next(time.Since(c.started))
		s.log.Warn().Int("exit_code", end.status.ExitCode()).Dur("delay", delay).
			Msg("CMD exited before the main was done; restarting")
		if out, stop := s.waitBackoff(delay); stop {
			return out
		}
	}
}

func (s *supervisor) shouldRestart(st Status) bool {
	switch s.cfg.Restart {
	case RestartAlways:
		return true
	case RestartOnFailure:
		return st.ExitCode() != 0
	}
	return false
}

// waitBackoff sleeps before a restart; the done condition or a terminating
// signal ends tandem at once.
func (s *supervisor) waitBackoff(delay time.Duration) (outcome, bool) {
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return outcome{}, false
		case ev := <-s.doneEvents:
			s.logDone(ev)
			return outcome{code: 0, reason: ReasonStopped}, true
		case received := <-s.signals:
			sig := received.(unix.Signal)
			if sig == s.cfg.DoneSignal {
				s.logDone(DoneEvent{Source: "done-signal", SeenAt: time.Now()})
				return outcome{code: 0, reason: ReasonStopped}, true
			}
			if endsTandem(sig) {
				return outcome{code: exitSignalBase + int(sig), reason: ReasonSignaled, signal: SignalName(sig)}, true
			}
			s.log.Debug().Str("signal", SignalName(sig)).Msg("signal ignored: CMD is not running (restart backoff)")
		}
	}
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
