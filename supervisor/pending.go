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
}

// ranking holds the one event select took while another that ranks before
// it was ready too: it is given out after that one. Held for a channel no
// loop listens to any more (a run that is over), it is dropped when the
// next is held.
type ranking struct{ held *loopEvent }

// next waits for an event on ch and returns the ready one that ranks first.
func (rk *ranking) next(ch eventChans) loopEvent {
	if ev, ok := rk.take(ch); ok {
		return ev
	}
	return rk.outranked(ch, ch.wait())
}

// outranked is ev, which select took, unless one that ranks before it was
// ready too: then that one, and ev is held for the next call.
func (rk *ranking) outranked(ch eventChans, ev loopEvent) loopEvent {
	for k := range ev.kind {
		if first, ok := ch.poll(k); ok {
			ev.from = ch.of(ev.kind)
			rk.held = &ev
			return first
		}
	}
	return ev
}

// take returns the ready event on ch that ranks first, without waiting. A
// held event counts only on the channel it came on: one that came for a
// run that is over is never given to the next.
func (rk *ranking) take(ch eventChans) (loopEvent, bool) {
	held, before := rk.held, eventKinds
	if held != nil && held.from == ch.of(held.kind) {
		before = held.kind
	}
	for k := range before {
		if ev, ok := ch.poll(k); ok {
			return ev, true
		}
	}
	if before == eventKinds {
		return loopEvent{}, false
	}
	rk.held = nil
	return *held, true
}

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
	}
}

// poll takes an event of kind k if one is ready.
func (ch eventChans) poll(k eventKind) (loopEvent, bool) {
	ev := loopEvent{kind: k}
	var ok bool
	switch k {
	case evExit:
		ev.status, ok = tryReceive(ch.exited)
	case evDone:
		ev.done, ok = tryReceive(ch.done)
	case evSignal:
		var sig os.Signal
		if sig, ok = tryReceive(ch.signals); ok {
			ev.signal = sig.(unix.Signal)
		}
	case evReadyFailed:
		ev.err, ok = tryReceive(ch.readyFailed)
	case evTimer:
		_, ok = tryReceive(ch.timer)
	case evQuitAnswered:
		_, ok = tryReceive(ch.quitDone)
	case evHoldTimer:
		_, ok = tryReceive(ch.holdTimer)
	case evJobStop:
		ev.signal, ok = tryReceive(ch.stopped)
	case evLoss:
		ev.loss, ok = tryReceive(ch.lost)
	case evWaitOver:
		_, ok = tryReceive(ch.waitOver)
	}
	return ev, ok
}

// of is the channel events of kind k come on.
func (ch eventChans) of(k eventKind) any {
	switch k {
	case evExit:
		return ch.exited
	case evDone:
		return ch.done
	case evSignal:
		return ch.signals
	case evReadyFailed:
		return ch.readyFailed
	case evTimer:
		return ch.timer
	case evQuitAnswered:
		return ch.quitDone
	case evHoldTimer:
		return ch.holdTimer
	case evJobStop:
		return ch.stopped
	case evLoss:
		return ch.lost
	case evWaitOver:
		return ch.waitOver
	}
	return nil
}

// tryReceive receives from c if a value is there.
func tryReceive[T any](c <-chan T) (T, bool) {
	select {
	case v := <-c:
		return v, true
	default:
		var zero T
		return zero, false
	}
}
