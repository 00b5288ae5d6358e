package supervisor

import (
	"context"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/logstamp"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// The requested stop: the main is done (the done condition, the done
// signal), so CMD is stopped, and tandem exits 0 however CMD took it. The
// same sequence, without --stop-delay, stops CMD when tandem itself fails.

// stopPhase is where the stop sequence is: --stop-delay, quit URLs, --grace
// for CMD to leave after them, the stop signal, --grace, SIGKILL.
type stopPhase int

const (
	stopIdle         stopPhase = iota
	stopDelaying               // --stop-delay: a shipper drains
	stopQuitting               // quit URLs are being called
	stopAwaitingQuit           // called: --grace for CMD to leave by itself
	stopSignaled               // the stop signal sent: --grace until SIGKILL
	stopKilled
)

// stopSequence is the requested stop as state of the loop: its timers and
// the end of the quit calls are events there, so only the loop signals CMD.
// Its fields change in this file only: enter moves it on, afterDelay starts
// the quit calls and quitFinished ends them.
type stopSequence struct {
	phase      stopPhase
	timer      <-chan time.Time
	killAfter  time.Duration // stopSignaled: what timer waits before SIGKILL
	quitDone   chan struct{}
	cancelQuit context.CancelFunc
}

func (s *stopSequence) active() bool { return s.phase != stopIdle }

// enter moves the sequence to phase p; timer (nil: none) is its next step,
// killAfter what a stopSignaled timer waits before SIGKILL.
func (s *stopSequence) enter(p stopPhase, timer <-chan time.Time, killAfter time.Duration) {
	s.phase, s.timer, s.killAfter = p, timer, killAfter
}

// quitAfterExit bounds the wait, once CMD has exited, for a quit call
// still in flight. A program that exits on the call closes its connections
// as it goes, so the outcome comes within a moment; the call's own timeout
// (up to 5 s) would hold the pod's end for nothing.
const quitAfterExit = time.Second

// end stops what the sequence still has running once CMD is gone. A quit
// call in flight is given quitAfterExit to end, then cancelled, and waited
// for: its outcome is logged, never lost with tandem's exit.
func (s *stopSequence) end(after func(time.Duration) <-chan time.Time) {
	if s.quitDone != nil {
		select {
		case <-s.quitDone:
		default:
			select {
			case <-s.quitDone:
			case <-after(quitAfterExit):
			}
		}
	}
	if s.cancelQuit != nil {
		s.cancelQuit()
	}
	if s.quitDone != nil {
		<-s.quitDone
	}
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

// quitCallTimeout bounds each quit URL call: at least a second, at most five,
// otherwise --grace.
func quitCallTimeout(grace time.Duration) time.Duration {
	return min(max(grace, time.Second), 5*time.Second)
}

// beginStop starts the stop sequence once; delay says whether --stop-delay
// applies (the main is done) or not (tandem itself failed).
func (e *engine) beginStop(ctx context.Context, r *cmdRun, delay bool) {
	if r.stop.active() {
		return
	}
	if d := e.cfg.Sidecar.StopDelay; delay && d > 0 {
		r.stop.enter(stopDelaying, e.w.After(d), 0)
		event(e.log.Info(), cmdline.EventStopDelayed).Dur("stop_delay_ms", d).Msg("stop delayed so CMD can drain")
		return
	}
	e.afterDelay(ctx, r)
}

func (e *engine) afterDelay(ctx context.Context, r *cmdRun) {
	urls := e.cfg.Sidecar.QuitURLs
	if len(urls) == 0 {
		e.sendStop(r)
		return
	}
	quitCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	r.stop.enter(stopQuitting, nil, 0)
	r.stop.quitDone, r.stop.cancelQuit = done, cancel
	go func() {
		defer close(done)
		e.w.Quit(quitCtx, urls, quitCallTimeout(e.cfg.Grace), e.log)
	}()
}

func (e *engine) quitFinished(r *cmdRun) {
	r.stop.quitDone = nil
	r.stop.enter(stopAwaitingQuit, e.w.After(e.cfg.Grace), 0)
}

func (e *engine) stopTimerFired(ctx context.Context, r *cmdRun) {
	switch r.stop.phase {
	case stopDelaying:
		e.afterDelay(ctx, r)
	case stopAwaitingQuit:
		e.sendStop(r)
	case stopSignaled:
		event(e.log.Warn(), cmdline.EventKillSent).Int("pid", r.child.Pid).Dur("grace_ms", r.stop.killAfter).
			Msg("CMD did not stop within grace; sending SIGKILL")
		_ = e.w.Signal(r.child.Pid, unix.SIGKILL, true)
		r.stop.enter(stopKilled, nil, 0)
	}
}

// stopsAtOnce: the stop signal is the first step of the stop to begin.
func (e *engine) stopsAtOnce(r *cmdRun) bool {
	return !r.stop.active() && e.cfg.Sidecar.StopDelay <= 0 && len(e.cfg.Sidecar.QuitURLs) == 0
}

// stopSent is the stop signal as it went out: when, and whether it failed.
type stopSent struct {
	at  time.Time
	err error
}

func (e *engine) sendStop(r *cmdRun) { e.logStopSent(r, e.signalStop(r)) }

// signalStop sends the stop signal before anything is logged about it; the
// time is taken right before kill(2), so CMD's reaction is never stamped
// before the line that says it was asked to stop.
func (e *engine) signalStop(r *cmdRun) stopSent {
	at := e.w.Now()
	err := e.w.Signal(r.child.Pid, e.cfg.StopSignal, true)
	e.killAfter(r, e.cfg.Grace)
	return stopSent{at: at, err: err}
}

// killAfter: a signal that stops CMD went out (the stop signal, the pod's
// signal to a main, a held signal released); SIGKILL follows after grace.
func (e *engine) killAfter(r *cmdRun, grace time.Duration) {
	r.stop.enter(stopSignaled, e.w.After(grace), grace)
}

func (e *engine) logStopSent(r *cmdRun, sent stopSent) {
	event(logstamp.At(e.log.Info(), sent.at), cmdline.EventStopSent).Int("pid", r.child.Pid).
		Str("signal", signals.Name(e.cfg.StopSignal)).Msg("stop signal sent")
	if sent.err != nil {
		event(e.log.Error(), cmdline.EventSignalFailed).Err(sent.err).Int("pid", r.child.Pid).Msg("cannot send stop signal")
	}
}
