package supervisor

import (
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/logstamp"
	"github.com/tandem-sh/tandem/supervisor/probe"
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
	stopLeftovers       // CMD exited; its group got the stop signal: --grace until SIGKILL (leftovers.go)
	stopLeftoversKilled // and SIGKILL
)

// stopSettings is what the stop is given: the stop signal, --grace, and a
// sidecar's --stop-delay and quit URLs (none in the other modes).
type stopSettings struct {
	signal   unix.Signal
	grace    time.Duration
	delay    time.Duration
	quitURLs []probe.Target
}

func newStopSettings(cfg Config) stopSettings {
	s := stopSettings{signal: cfg.StopSignal, grace: cfg.Grace}
	if cfg.Mode == ModeSidecar {
		s.delay, s.quitURLs = cfg.Sidecar.StopDelay, cfg.Sidecar.QuitURLs
	}
	return s
}

// stopSequence is the stop of one run of CMD, and the one owner of its
// decisions: each method moves it on and returns the actions the loop
// applies (signals, the timer of its next step, the quit calls), so only
// the loop signals CMD, and the stop's timer and the end of its quit calls
// come back to it as events. Its fields change in this file and
// leftovers.go only.
type stopSequence struct {
	stopSettings
	pid       int // CMD's, for the lines
	log       zerolog.Logger
	phase     stopPhase
	requested bool          // the stop is the main being done, not a failure
	killAfter time.Duration // stopSignaled: what the timer waits before SIGKILL
}

func newStopSequence(s stopSettings, pid int, log zerolog.Logger) stopSequence {
	return stopSequence{stopSettings: s, pid: pid, log: log}
}

func (s *stopSequence) active() bool { return s.phase != stopIdle }

// mainDone: the stop is the main being done (or will be, should CMD exit
// on its own now): the run ends with 0.
func (s *stopSequence) mainDone() bool { return s.requested }

// stopping: the requested stop is under way.
func (s *stopSequence) stopping() bool { return s.active() && s.requested }

// doneSeen begins the requested stop for the done condition, unless it is
// a second source of the same news (the main peer's end after its done
// signal): the stop under way goes on.
func (s *stopSequence) doneSeen(ev doneEvent) []action {
	if s.requested {
		event(s.log.Debug(), cmdline.EventDoneSeen).Str("source", ev.Source).Msg("main is done (again): the stop goes on")
		return nil
	}
	return s.done(ev)
}

// done stops CMD for the main being done. When nothing comes before the
// stop signal (no --stop-delay, no quit URLs), the signal goes out first and
// the two lines that say so follow, stamped with its time: each line is an
// encode and a write(2) that CMD's stop need not wait for.
func (s *stopSequence) done(ev doneEvent) []action {
	s.requested = true
	if !s.active() && s.delay <= 0 && len(s.quitURLs) == 0 {
		return s.signalStop(action{done: &ev})
	}
	logDone(s.log, ev, time.Time{})
	return s.begin(true)
}

// doneWithExit: the done condition came with CMD's exit: the exit is the
// requested stop it would have been a moment earlier.
func (s *stopSequence) doneWithExit(ev doneEvent) {
	logDone(s.log, ev, time.Time{})
	s.requested = true
}

// lost: main --needs, a needed sidecar was lost: CMD gets the stop signal
// (--grace, SIGKILL), and the line that says why follows it.
func (s *stopSequence) lost(loss sidecarLoss) []action {
	return s.signalStop(action{lost: &loss})
}

// begin starts the sequence once; delay says whether --stop-delay applies
// (the main is done) or not (tandem itself failed).
func (s *stopSequence) begin(delay bool) []action {
	if s.active() {
		return nil
	}
	if delay && s.delay > 0 {
		s.phase = stopDelaying
		event(s.log.Info(), cmdline.EventStopDelayed).Dur("stop_delay_ms", s.delay).Msg("stop delayed so CMD can drain")
		return []action{{kind: actArm, after: s.delay}}
	}
	return s.afterDelay()
}

func (s *stopSequence) afterDelay() []action {
	if len(s.quitURLs) == 0 {
		return s.signalStop(action{})
	}
	s.phase = stopQuitting
	return []action{{kind: actQuit, urls: s.quitURLs, after: quitCallTimeout(s.grace)}}
}

// quitAnswered: the quit calls ended; CMD has --grace to leave by itself.
func (s *stopSequence) quitAnswered() []action {
	s.phase = stopAwaitingQuit
	return []action{{kind: actArm, after: s.grace}}
}

// timerFired: the timer the sequence asked for went off.
func (s *stopSequence) timerFired() []action {
	switch s.phase {
	case stopDelaying:
		return s.afterDelay()
	case stopAwaitingQuit:
		return s.signalStop(action{})
	case stopSignaled:
		event(s.log.Warn(), cmdline.EventKillSent).Int("pid", s.pid).Dur("grace_ms", s.killAfter).
			Msg("CMD did not stop within grace; sending SIGKILL")
		s.phase = stopKilled
		return []action{{kind: actSignal, signal: unix.SIGKILL}}
	case stopLeftovers:
		return s.leftoversTimedOut()
	}
	return nil
}

// signalStop sends the stop signal, then says so (and what came with it:
// the done condition, a needed sidecar's loss) stamped with its time, so
// CMD's reaction is never stamped before the line that says it was asked
// to stop; SIGKILL follows after --grace.
func (s *stopSequence) signalStop(with action) []action {
	with.kind, with.signal, with.stopSent = actSignal, s.signal, true
	return append([]action{with}, s.killAfterGrace(s.grace)...)
}

// killAfterGrace: a signal that stops CMD went out (the stop signal, the
// pod's signal to a main, a held signal released); SIGKILL follows after
// grace.
func (s *stopSequence) killAfterGrace(grace time.Duration) []action {
	s.phase, s.killAfter = stopSignaled, grace
	return []action{{kind: actArm, after: grace}}
}

// released: the hold's deadline passed and the held signal went on to
// CMD: the pod is going away now, so it cuts a --stop-delay short.
func (s *stopSequence) released() []action {
	if s.phase != stopDelaying {
		return nil
	}
	return s.killAfterGrace(s.grace)
}

// quitCallTimeout bounds each quit URL call: at least a second, at most five,
// otherwise --grace.
func quitCallTimeout(grace time.Duration) time.Duration {
	return min(max(grace, time.Second), 5*time.Second)
}

// logDone says the main is done; a non-zero at is the time the line
// reports (the stop signal's, sent before the line was written).
func logDone(log zerolog.Logger, ev doneEvent, at time.Time) {
	l := log.Info()
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
