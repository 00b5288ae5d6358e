package supervisor

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
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

// open: the termination signal, if it came now, would be held: a main is
// there to outlive and nothing was held yet. A main that never started (a
// bad image, a wrong command), or that is gone, leaves nothing to outlive:
// the pod's deletion then takes seconds, not its grace period. Without
// done files (a shared PID namespace) the main cannot be told this way:
// the signal is held as ever.
func (d *deletion) open() bool {
	if d.outlive <= 0 || d.state != holdNone {
		return false
	}
	if len(d.doneFiles) == 0 {
		return true
	}
	for _, done := range d.doneFiles {
		if d.mainHolds(done) {
			return true
		}
	}
	return false
}

// take holds the termination signal: confirmed at once when a main has
// marked its termination (or none can mark it), else provisionally while
// the mark is looked for.
func (d *deletion) take() holdStep {
	if d.anyMarked() {
		return d.confirm()
	}
	d.state, d.looksLeft, d.timer = holdProvisional, markPolls, d.clock.After(markPoll)
	return stepLooking
}

// tick is the hold's timer: the next look for a mark, or the deadline.
func (d *deletion) tick() holdStep {
	d.timer = nil
	switch {
	case d.state == holdConfirmed:
		d.state = holdReleased
		return stepReleased
	case d.anyMarked():
		return d.confirm()
	case d.looksLeft <= 1:
		d.state, d.looksLeft = holdNone, 0
		return stepAlone
	}
	d.looksLeft--
	d.timer = d.clock.After(markPoll)
	return stepWaits
}

// settle decides a provisional hold as CMD exits: one last look. Not
// marked, the signal was this container's alone, and it has lost its CMD.
func (d *deletion) settle() holdStep {
	if d.state != holdProvisional {
		return stepWaits
	}
	if d.anyMarked() {
		return d.confirm()
	}
	d.state, d.looksLeft, d.timer = holdNone, 0, nil
	return stepWaits
}

// confirm: the pod is being deleted. The deadline counts from the signal's
// arrival, not from the mark's: less the looks already made.
func (d *deletion) confirm() holdStep {
	looked := time.Duration(0)
	if d.state == holdProvisional {
		looked = time.Duration(markPolls-d.looksLeft+1) * markPoll
	}
	d.state, d.looksLeft = holdConfirmed, 0
	close(d.deleting) // once: a confirmed hold is never taken again
	d.timer = d.clock.After(max(0, d.outlive-looked))
	return stepHeld
}

// holdTimer is the hold's one timer, for the loops to listen to: the next
// look for a mark while provisional, the deadline once confirmed.
func (d *deletion) holdTimer() <-chan time.Time { return d.timer }

// held: confirmed, the deadline still ahead; a restart goes on under it.
func (d *deletion) held() bool { return d.state == holdConfirmed }

// looking: provisional, the answer still to come.
func (d *deletion) looking() bool { return d.state == holdProvisional }

// anyMarked: a main of the done files marked its termination. Without
// done files no main can mark it, and the signal is held as ever.
func (d *deletion) anyMarked() bool {
	if len(d.doneFiles) == 0 {
		return true
	}
	for _, done := range d.doneFiles {
		if d.mainMarked(done) {
			return true
		}
	}
	return false
}

// whileRunning is what a step of the hold asks while CMD runs: the held
// signal goes to CMD once no mark came or the deadline passed, and a
// deadline cuts the stop's --stop-delay short: the pod is going away now.
func (d *deletion) whileRunning(step holdStep, stop *stopSequence) []action {
	sig, goesOn := d.stepped(step, false)
	if !goesOn {
		return nil
	}
	acts := []action{{kind: actForward, signal: sig}}
	if step == stepReleased {
		acts = append(acts, stop.released()...)
	}
	return acts
}

// holdStepped does what a step of the hold means while no CMD runs (a
// restart backoff, during names it): once the held signal would go on, it
// ends tandem, and ended says so.
func (e *engine) holdStepped(step holdStep, during string) (end idleEnd, ended bool) {
	sig, goesOn := e.deletion.stepped(step, true)
	switch {
	case !goesOn:
		return idleEnd{}, false
	case step == stepAlone:
		return interruptedIdle(e.log, sig, during), true
	}
	return idleEnd{signal: sig}, true
}

// stepped says what the hold did (idle: no CMD runs, a restart backoff),
// and whether the held signal, sig, goes on now.
func (d *deletion) stepped(step holdStep, idle bool) (held unix.Signal, goesOn bool) {
	sig, l := signals.Name(d.signal), d.log.Info()
	switch step {
	case stepLooking:
		event(l, cmdline.EventMarkAwaited).Str("signal", sig).Dur("wait_ms", markWait).
			Msg("termination signal: looking for a main's termination mark before holding it")
	case stepHeld:
		msg := "termination signal held: CMD keeps running until the main is done or outlive-main passes"
		if idle {
			msg = "termination signal held during a restart backoff: CMD starts again and runs until the main is done or outlive-main passes"
		}
		event(l, cmdline.EventSignalHeld).Str("signal", sig).Dur("outlive_main_ms", d.outlive).Msg(msg)
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
		event(l, cmdline.EventSignalReleased).Str("signal", sig).Dur("outlive_main_ms", d.outlive).Msg(msg)
	}
	return d.signal, step == stepAlone || step == stepReleased
}
