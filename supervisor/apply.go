package supervisor

import (
	"context"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/logstamp"
	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/process"
)

// The owners of the engine's decisions (the stop, the pod's deletion)
// return what is to be done to CMD as actions; the loop applies them, so
// only the loop's goroutine signals CMD, and what it starts (a timer, the
// quit calls) comes back to it as events.

// actionKind is what an action does.
type actionKind int

const (
	actSignal  actionKind = iota // kill(2) of CMD's group with signal, then the lines that say so
	actForward                   // signal passed on as a received one (--rewrite, --child-only)
	actArm                       // the stop's timer: its next step after `after`
	actQuit                      // call urls, each bounded by `after`
)

// action is one thing the loop does for a decision.
type action struct {
	kind   actionKind
	signal unix.Signal    // actSignal, actForward
	after  time.Duration  // actArm: the wait; actQuit: each call's timeout
	urls   []probe.Target // actQuit
	// actSignal: the lines that follow the signal, stamped with its time:
	// the main done, a needed sidecar lost, the stop signal sent.
	done     *doneEvent
	lost     *sidecarLoss
	stopSent bool
}

// signalled is an actSignal as it went out: when, and whether it failed.
type signalled struct {
	action
	at  time.Time
	err error
}

// apply does acts, in order, for run r. The lines that follow a signal are
// written once every action is done: each is an encode and a write(2) that
// CMD's stop need not wait for.
func (e *engine) apply(ctx context.Context, r *cmdRun, acts []action) {
	var sent []signalled
	for _, a := range acts {
		switch a.kind {
		case actSignal:
			// The time is taken right before kill(2), so CMD's reaction is
			// never stamped before the line that says it was asked to stop.
			at := e.w.Now()
			sent = append(sent, signalled{a, at, e.w.Signal(r.child.Pid, a.signal, true)})
		case actForward:
			e.forward(r.child, a.signal)
		case actArm:
			r.timer = e.w.After(a.after)
		case actQuit:
			r.callQuit(ctx, e.w.quitter, a, e.log)
		}
	}
	for _, s := range sent {
		s.say(e.log, r.child)
	}
}

// say writes the lines of a signal sent to c.
func (s signalled) say(log zerolog.Logger, c *process.Child) {
	if s.done != nil {
		logDone(log, *s.done, s.at)
	}
	if s.lost != nil {
		event(logstamp.At(log.Error(), s.at), cmdline.EventSidecarLost).Str("sidecar", s.lost.sidecar).Str("ready_file", s.lost.ready).
			Msg("a needed sidecar was lost; stopping CMD")
	}
	if !s.stopSent {
		return
	}
	event(logstamp.At(log.Info(), s.at), cmdline.EventStopSent).Int("pid", c.Pid).
		Str("signal", signals.Name(s.signal)).Msg("stop signal sent")
	if s.err != nil {
		event(log.Error(), cmdline.EventSignalFailed).Err(s.err).Int("pid", c.Pid).Msg("cannot send stop signal")
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

// callQuit starts the stop's quit calls; their end is an event of the loop
// (quitDone), and cancelQuit cuts them short.
func (r *cmdRun) callQuit(ctx context.Context, q quitter, a action, log zerolog.Logger) {
	quitCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	r.quitDone, r.cancelQuit = done, cancel
	go func() {
		defer close(done)
		q.Quit(quitCtx, a.urls, a.after, log)
	}()
}

// quitAfterExit bounds the wait, once CMD has exited, for a quit call
// still in flight. A program that exits on the call closes its connections
// as it goes, so the outcome comes within a moment; the call's own timeout
// (up to 5 s) would hold the pod's end for nothing.
const quitAfterExit = time.Second

// endQuit stops the quit calls still running once CMD is gone: given
// quitAfterExit to end, then cancelled, and waited for: their outcome is
// logged, never lost with tandem's exit.
func (r *cmdRun) endQuit(after func(time.Duration) <-chan time.Time) {
	if r.quitDone != nil {
		select {
		case <-r.quitDone:
		default:
			select {
			case <-r.quitDone:
			case <-after(quitAfterExit):
			}
		}
	}
	if r.cancelQuit != nil {
		r.cancelQuit()
	}
	if r.quitDone != nil {
		<-r.quitDone
	}
}
