package supervisor

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/process"
)

// Which pending event goes first. The loops (supervise while CMD runs, idle
// while none runs) take their events from many channels, and Go's select
// picks among ready cases at random; they take them through next instead,
// which gives out the ready one that ranks first.

// eventKind is what an event is; the order of the kinds is their rank.
type eventKind int

const (
	// CMD's exit: what CMD did is never lost to an event that came for a
	// run already over.
	evExit eventKind = iota
	// The done condition (sidecar): a termination signal pending with it is
	// the same stop, absorbed, and --stop-delay still lets a shipper drain;
	// pending with CMD's exit, it makes the exit the requested stop.
	evDone
	// A signal: a pod going away starts no CMD, and a main stopping on its
	// termination signal keeps that reason.
	evSignal
	evReadyFailed  // the ready file cannot be written
	evTimer        // the stop sequence's next step; idle: the restart backoff passed
	evQuitAnswered // the stop's quit URLs answered
	evHoldTimer    // the hold's timer: its next look for a mark, or its deadline (hold.go)
	evJobStop      // CMD stopped by job control
	// A needed sidecar lost (main --needs): the main's own end, or its
	// signal, keeps its reason; a CMD without the sidecar never starts.
	evLoss
	evWaitOver // idle: what it waited for
	// CMD exited and its group still has processes (leftovers.go): the
	// reaper reaped some, or the look at the group is due.
	evReaped
	evLeftoversLook
	eventKinds
)

// loopEvent is one event; the field of its kind is set.
type loopEvent struct {
	kind   eventKind
	status process.Status // evExit
	done   doneEvent      // evDone
	signal unix.Signal    // evSignal, evJobStop
	err    error          // evReadyFailed
	loss   sidecarLoss    // evLoss
	from   any            // the channel it came on, once held
}

// eventChans are the channels a loop takes events from; a nil one is never
// ready.
type eventChans struct {
	exited      <-chan process.Status
	done        <-chan doneEvent
	signals     <-chan os.Signal
	readyFailed <-chan error
	timer       <-chan time.Time
	quitDone    <-chan struct{}
	holdTimer   <-chan time.Time
	stopped     <-chan unix.Signal
	lost        <-chan sidecarLoss
	waitOver    <-chan struct{}
	reaped      <-chan struct{}
	look        <-chan time.Time
}

// ranking holds an event select took while another that ranks before it
// was ready too: it is given out after that one, to the next loop that
// listens to the channel it came on (a signal taken with CMD's exit, to the
// restart backoff). One is held per kind: held for a channel no loop
// listens to any more (a run that is over), it is dropped when the next
// of its kind is held.
type ranking struct{ held [eventKinds]*loopEvent }

// next waits for an event on ch and returns the ready one that ranks first.
func (rk *ranking) next(ch eventChans) loopEvent {
	if ev, ok := rk.takeFrom(ch); ok {
		return ev
	}
	return rk.outranked(ch, ch.wait())
}

// withExit takes, in rank order, what is pending on ch as CMD exits: the
// exit ranks first, so what came for the run it ends is still there (the
// done condition, a readiness failure), for ended to close the run with.
// ch's channels deliver once each, so this ends.
func (rk *ranking) withExit(ch eventChans) []loopEvent {
	var pending []loopEvent
	for {
		ev, ok := rk.takeFrom(ch)
		if !ok {
			return pending
		}
		pending = append(pending, ev)
	}
}

// outranked is ev, which select took, unless one that ranks before it was
// ready too: then that one, and ev is held for the next call.
func (rk *ranking) outranked(ch eventChans, ev loopEvent) loopEvent {
	for k := range ev.kind {
		if _, first, ok := ch.source(k, true); ok {
			ev.from, _, _ = ch.source(ev.kind, false)
			rk.held[ev.kind] = &ev
			return first
		}
	}
	return ev
}

// takeFrom returns the ready event on ch that ranks first, without
// waiting; of one kind, the held event before a new one. A held event
// counts only on the channel it came on: one that came for a run that is
// over is never given to the next.
func (rk *ranking) takeFrom(ch eventChans) (loopEvent, bool) {
	for k := range eventKinds {
		if held := rk.held[k]; held != nil {
			if from, _, _ := ch.source(k, false); from == held.from {
				rk.held[k] = nil
				return *held, true
			}
		}
		if _, ev, ok := ch.source(k, true); ok {
			return ev, true
		}
	}
	return loopEvent{}, false
}

// wait and source are the two places that name each kind's channel and
// what it carries: a select cannot be built from a list without reflect,
// whose cost (allocations on every event, 57 KB of binary) the loop does
// not pay. TestWaitAndSourceAgree holds them together.

// wait blocks until a channel of ch delivers, and takes any one of those
// ready.
func (ch eventChans) wait() loopEvent {
	select {
	case st := <-ch.exited:
		return loopEvent{kind: evExit, status: st}
	case ev := <-ch.done:
		return loopEvent{kind: evDone, done: ev}
	case sig := <-ch.signals:
		return loopEvent{kind: evSignal, signal: sig.(unix.Signal)} // os/signal delivers syscall.Signal, which unix.Signal is
	case err := <-ch.readyFailed:
		return loopEvent{kind: evReadyFailed, err: err}
	case <-ch.timer:
		return loopEvent{kind: evTimer}
	case <-ch.quitDone:
		return loopEvent{kind: evQuitAnswered}
	case <-ch.holdTimer:
		return loopEvent{kind: evHoldTimer}
	case sig := <-ch.stopped:
		return loopEvent{kind: evJobStop, signal: sig}
	case loss := <-ch.lost:
		return loopEvent{kind: evLoss, loss: loss}
	case <-ch.waitOver:
		return loopEvent{kind: evWaitOver}
	case <-ch.reaped:
		return loopEvent{kind: evReaped}
	case <-ch.look:
		return loopEvent{kind: evLeftoversLook}
	}
}

// source is kind k's channel in ch (from, which a held event's check
// compares) and, when take, the event ready on it, taken without waiting.
func (ch eventChans) source(k eventKind, take bool) (from any, ev loopEvent, ok bool) {
	ev.kind = k
	switch k {
	case evExit:
		from = ch.exited
		ev.status, ok = receive(ch.exited, take)
	case evDone:
		from = ch.done
		ev.done, ok = receive(ch.done, take)
	case evSignal:
		var sig os.Signal
		from = ch.signals
		if sig, ok = receive(ch.signals, take); ok {
			ev.signal = sig.(unix.Signal)
		}
	case evReadyFailed:
		from = ch.readyFailed
		ev.err, ok = receive(ch.readyFailed, take)
	case evTimer:
		from = ch.timer
		_, ok = receive(ch.timer, take)
	case evQuitAnswered:
		from = ch.quitDone
		_, ok = receive(ch.quitDone, take)
	case evHoldTimer:
		from = ch.holdTimer
		_, ok = receive(ch.holdTimer, take)
	case evJobStop:
		from = ch.stopped
		ev.signal, ok = receive(ch.stopped, take)
	case evLoss:
		from = ch.lost
		ev.loss, ok = receive(ch.lost, take)
	case evWaitOver:
		from = ch.waitOver
		_, ok = receive(ch.waitOver, take)
	case evReaped:
		from = ch.reaped
		_, ok = receive(ch.reaped, take)
	case evLeftoversLook:
		from = ch.look
		_, ok = receive(ch.look, take)
	}
	return from, ev, ok
}

// receive takes a value from c if take and one is there.
func receive[T any](c <-chan T, take bool) (T, bool) {
	if take {
		select {
		case v := <-c:
			return v, true
		default:
		}
	}
	var zero T
	return zero, false
}
