package supervisor

import (
	"time"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// The sidecar's hold of its termination signal (--outlive-main): the pod is
// being deleted, and the main still drains and needs its sidecar. A
// deletion signals every container of the pod together; the kubelet
// restarting a sidecar after a failed liveness probe (or a `kill` from
// outside) signals that container alone. So a main marks its termination
// beside its done file (termination_mark.go), and the sidecar holds its
// signal only once a main's mark is there, looked for every markPoll for
// markWait: the kubelet stops the containers of a pod from one goroutine
// each, milliseconds apart. No mark by then: the signal was this
// container's alone, and goes on at once, as a native sidecar gets it
// right after its preStop hook (docs/commands.md).
//
// The hold belongs to the sidecar's tandem, not to one run of CMD: taken
// while CMD runs or during a restart backoff, it carries across restarts
// until the main is done or its deadline passes. Its one timer is the next
// look for a mark while provisional, the deadline once confirmed.
const (
	markWait  = 2 * time.Second
	markPoll  = 50 * time.Millisecond
	markPolls = int(markWait / markPoll)
)

// holdState is where the hold is.
type holdState int

const (
	holdNone        holdState = iota // nothing held yet
	holdProvisional                  // the signal came: a main's mark is looked for
	holdConfirmed                    // the pod is being deleted: held until the main is done or the deadline
	holdReleased                     // the deadline passed and the signal went on: never held again
)

// holdStep is what a change of the hold asks of the loop that made it.
type holdStep int

const (
	stepWaits    holdStep = iota // nothing yet: another look is due
	stepLooking                  // provisional: say so, keep CMD running
	stepHeld                     // confirmed: say so, keep CMD running
	stepAlone                    // no mark came: the signal was this container's alone; it goes on now
	stepReleased                 // the deadline passed: the signal goes on now
)

// hold is the sidecar's hold; only the engine's goroutine touches it. In
// the other modes, as without --outlive-main, it never holds.
type hold struct {
	outlive   time.Duration // --outlive-main; 0 never holds
	doneFiles []string
	clock     clock
	mainHolds func(done string) bool // world's: a main holds done's lifeline
	marked    func(done string) bool // the engine's mainMarked: a main of this pod marked its termination
	state     holdState
	looksLeft int              // provisional: looks for a mark still to make
	timer     <-chan time.Time // provisional: the next look; confirmed: the deadline
	deleting  chan struct{}    // closed as the hold is confirmed: --stop-when deletion's gate
}

// newHold is the hold of --outlive-main over doneFiles; marked says
// whether a done file's main marked its termination in this pod.
func newHold(outlive time.Duration, doneFiles []string, w world, marked func(done string) bool) *hold {
	return &hold{outlive: outlive, doneFiles: doneFiles, clock: w.clock, mainHolds: w.mainHolds, marked: marked,
		deleting: make(chan struct{})}
}

// open: the termination signal, if it came now, would be held: a main is
// there to outlive and nothing was held yet. A main that never started (a
// bad image, a wrong command), or that is gone, leaves nothing to outlive:
// the pod's deletion then takes seconds, not its grace period. Without
// done files (a shared PID namespace) the main cannot be told this way:
// the signal is held as ever.
func (h *hold) open() bool {
	if h.outlive <= 0 || h.state != holdNone {
		return false
	}
	if len(h.doneFiles) == 0 {
		return true
	}
	for _, done := range h.doneFiles {
		if h.mainHolds(done) {
			return true
		}
	}
	return false
}

// take holds the termination signal: confirmed at once when a main has
// marked its termination (or none can mark it), else provisionally while
// the mark is looked for.
func (h *hold) take() holdStep {
	if h.anyMarked() {
		return h.confirm()
	}
	h.state, h.looksLeft, h.timer = holdProvisional, markPolls, h.clock.After(markPoll)
	return stepLooking
}

// tick is the hold's timer: the next look for a mark, or the deadline.
func (h *hold) tick() holdStep {
	h.timer = nil
	switch {
	case h.state == holdConfirmed:
		h.state = holdReleased
		return stepReleased
	case h.anyMarked():
		return h.confirm()
	case h.looksLeft <= 1:
		h.state, h.looksLeft = holdNone, 0
		return stepAlone
	}
	h.looksLeft--
	h.timer = h.clock.After(markPoll)
	return stepWaits
}

// settle decides a provisional hold as CMD exits: one last look. Not
// marked, the signal was this container's alone, and it has lost its CMD.
func (h *hold) settle() holdStep {
	if h.state != holdProvisional {
		return stepWaits
	}
	if h.anyMarked() {
		return h.confirm()
	}
	h.state, h.looksLeft, h.timer = holdNone, 0, nil
	return stepWaits
}

// confirm: the pod is being deleted. The deadline counts from the signal's
// arrival, not from the mark's: less the looks already made.
func (h *hold) confirm() holdStep {
	looked := time.Duration(0)
	if h.state == holdProvisional {
		looked = time.Duration(markPolls-h.looksLeft+1) * markPoll
	}
	h.state, h.looksLeft = holdConfirmed, 0
	close(h.deleting) // once: a confirmed hold is never taken again
	h.timer = h.clock.After(max(0, h.outlive-looked))
	return stepHeld
}

// held: confirmed, the deadline still ahead; a restart goes on under it.
func (h *hold) held() bool { return h.state == holdConfirmed }

// looking: provisional, the answer still to come.
func (h *hold) looking() bool { return h.state == holdProvisional }

// anyMarked: a main of the done files marked its termination. Without
// done files no main can mark it, and the signal is held as ever.
func (h *hold) anyMarked() bool {
	if len(h.doneFiles) == 0 {
		return true
	}
	for _, done := range h.doneFiles {
		if h.marked(done) {
			return true
		}
	}
	return false
}

// holdStepped does what a step of the hold means, in both loops: the one
// place the held signal goes on. While CMD runs (r), it goes to CMD once
// no mark came or the deadline passed, and a deadline cuts a --stop-delay
// short: the pod is going away now. While none runs (r nil: a restart
// backoff, during names it), it ends tandem: ended says so.
func (e *engine) holdStepped(step holdStep, r *cmdRun, during string) (end idleEnd, ended bool) {
	e.logHold(step, r == nil)
	if step != stepAlone && step != stepReleased {
		return idleEnd{}, false
	}
	sig := e.cfg.Sidecar.TerminationSignal
	switch {
	case r == nil && step == stepAlone:
		return e.interruptedIdle(sig, during), true
	case r == nil:
		return idleEnd{signal: sig}, true
	}
	e.forward(r.child, sig)
	if step == stepReleased && r.stop.phase == stopDelaying {
		e.killAfter(r, e.cfg.Grace)
	}
	return idleEnd{}, false
}

// logHold says what the hold did; idle: no CMD runs (a restart backoff).
func (e *engine) logHold(step holdStep, idle bool) {
	sig, l := signals.Name(e.cfg.Sidecar.TerminationSignal), e.log.Info()
	switch step {
	case stepLooking:
		event(l, cmdline.EventMarkAwaited).Str("signal", sig).Dur("wait_ms", markWait).
			Msg("termination signal: looking for a main's termination mark before holding it")
	case stepHeld:
		msg := "termination signal held: CMD keeps running until the main is done or outlive-main passes"
		if idle {
			msg = "termination signal held during a restart backoff: CMD starts again and runs until the main is done or outlive-main passes"
		}
		event(l, cmdline.EventSignalHeld).Str("signal", sig).Dur("outlive_main_ms", e.cfg.Sidecar.OutliveMain).Msg(msg)
	case stepAlone:
		msg := "no main marked its termination: the signal came to this container alone; forwarding it"
		if idle {
			msg = "no main marked its termination: the signal came to this container alone, and no CMD runs"
		}
		event(l, cmdline.EventSignalAlone).Str("signal", sig).Dur("wait_ms", markWait).Msg(msg)
	case stepReleased:
		msg := "outlive-main passed before the main was done; forwarding the termination signal"
		if idle {
			msg = "outlive-main passed during a restart backoff; not restarting"
		}
		event(l, cmdline.EventSignalReleased).Str("signal", sig).Dur("outlive_main_ms", e.cfg.Sidecar.OutliveMain).Msg(msg)
	}
}
