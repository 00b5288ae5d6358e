package supervisor

import (
	"os"
	"reflect"
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
	in := ch.inputs()
	if ev, ok := rk.takeFrom(in); ok {
		return ev
	}
	return rk.outranked(in, in.wait())
}

// withExit takes, in rank order, what is pending on ch as CMD exits: the
// exit ranks first, so what came for the run it ends is still there (the
// done condition, a readiness failure), for ended to close the run with.
// ch's channels deliver once each, so this ends.
func (rk *ranking) withExit(ch eventChans) []loopEvent {
	in := ch.inputs()
	var pending []loopEvent
	for {
		ev, ok := rk.takeFrom(in)
		if !ok {
			return pending
		}
		pending = append(pending, ev)
	}
}

// outranked is ev, which select took, unless one that ranks before it was
// ready too: then that one, and ev is held for the next call.
func (rk *ranking) outranked(in inputs, ev loopEvent) loopEvent {
	for k := range ev.kind {
		if first, ok := in[k].poll(); ok {
			ev.from = in[ev.kind].ch
			rk.held = &ev
			return first
		}
	}
	return ev
}

// takeFrom returns the ready event on in that ranks first, without
// waiting. A held event counts only on the channel it came on: one that
// came for a run that is over is never given to the next.
func (rk *ranking) takeFrom(in inputs) (loopEvent, bool) {
	held, before := rk.held, eventKinds
	if held != nil && held.from == in[held.kind].ch {
		before = held.kind
	}
	for k := range before {
		if ev, ok := in[k].poll(); ok {
			return ev, true
		}
	}
	if before == eventKinds {
		return loopEvent{}, false
	}
	rk.held = nil
	return *held, true
}

// input is one kind's channel as the loops take it.
type input struct {
	ch   any                             // the channel, for a held event's check; nil when none
	sel  reflect.SelectCase              // for wait; a zero Chan is never ready
	recv func(v reflect.Value) loopEvent // wait's received value as the event
	poll func() (loopEvent, bool)        // takes a ready value without waiting
}

// on is the input of kind k on c; set puts what c carries into the event.
func on[T any](k eventKind, c <-chan T, set func(*loopEvent, T)) input {
	in := input{sel: reflect.SelectCase{Dir: reflect.SelectRecv}, poll: func() (loopEvent, bool) { return loopEvent{}, false }}
	if c == nil {
		return in
	}
	event := func(v T) loopEvent {
		ev := loopEvent{kind: k}
		set(&ev, v)
		return ev
	}
	in.ch = c
	in.sel.Chan = reflect.ValueOf(c)
	in.recv = func(v reflect.Value) loopEvent { return event(v.Interface().(T)) }
	in.poll = func() (loopEvent, bool) {
		v, ok := tryReceive(c)
		if !ok {
			return loopEvent{}, false
		}
		return event(v), true
	}
	return in
}

func none[T any](*loopEvent, T) {}

// inputs is a loop's channels by kind.
type inputs [eventKinds]input

// inputs is ch's channels by kind: the one list of what each kind comes on
// and carries.
func (ch eventChans) inputs() inputs {
	return inputs{
		evExit:         on(evExit, ch.exited, func(ev *loopEvent, st process.Status) { ev.status = st }),
		evDone:         on(evDone, ch.done, func(ev *loopEvent, d doneEvent) { ev.done = d }),
		evSignal:       on(evSignal, ch.signals, func(ev *loopEvent, s os.Signal) { ev.signal = s.(unix.Signal) }), // os/signal delivers syscall.Signal, which unix.Signal is
		evReadyFailed:  on(evReadyFailed, ch.readyFailed, func(ev *loopEvent, err error) { ev.err = err }),
		evTimer:        on(evTimer, ch.timer, none[time.Time]),
		evQuitAnswered: on(evQuitAnswered, ch.quitDone, none[struct{}]),
		evHoldTimer:    on(evHoldTimer, ch.holdTimer, none[time.Time]),
		evJobStop:      on(evJobStop, ch.stopped, func(ev *loopEvent, s unix.Signal) { ev.signal = s }),
		evLoss:         on(evLoss, ch.lost, func(ev *loopEvent, l sidecarLoss) { ev.loss = l }),
		evWaitOver:     on(evWaitOver, ch.waitOver, none[struct{}]),
	}
}

// wait blocks until a channel of in delivers, and takes any one of those
// ready.
func (in inputs) wait() loopEvent {
	cases := make([]reflect.SelectCase, len(in))
	for k := range in {
		cases[k] = in[k].sel
	}
	k, v, _ := reflect.Select(cases)
	return in[k].recv(v)
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
