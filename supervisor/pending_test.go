package supervisor

import (
	"errors"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/sys/unix"
)

// The rank, first to last: of two events ready at once, the loops take the
// one listed first.
var rank = []eventKind{evExit, evDone, evSignal, evReadyFailed, evTimer, evQuitAnswered, evHoldTimer, evJobStop, evLoss, evWaitOver, evReaped, evLeftoversLook}

// readyChans is a loop's channels with one event of each of kinds ready.
func readyChans(kinds ...eventKind) eventChans {
	var ch eventChans
	for _, k := range kinds {
		switch k {
		case evExit:
			ch.exited = readyWith(exitedWith(3))
		case evDone:
			ch.done = readyWith(doneEvent{Source: sourceDoneFile})
		case evSignal:
			ch.signals = readyWith[os.Signal](unix.SIGTERM)
		case evReadyFailed:
			ch.readyFailed = readyWith(errors.New("no space left"))
		case evTimer:
			ch.timer = readyWith(time.Now())
		case evQuitAnswered:
			ch.quitDone = readyWith(struct{}{})
		case evHoldTimer:
			ch.holdTimer = readyWith(time.Now())
		case evJobStop:
			ch.stopped = readyWith(unix.SIGTSTP)
		case evLoss:
			ch.lost = readyWith(testLoss)
		case evWaitOver:
			ch.waitOver = readyWith(struct{}{})
		case evReaped:
			ch.reaped = readyWith(struct{}{})
		case evLeftoversLook:
			ch.look = readyWith(time.Now())
		}
	}
	return ch
}

func readyWith[T any](v T) <-chan T {
	c := make(chan T, 1)
	c <- v
	return c
}

// Two events ready at once, whichever way they came: ready before the loop
// looked, or one taken by select while the other was ready too.
func TestRankTakesTheFirstReady(t *testing.T) {
	for i, first := range rank {
		for _, second := range rank[i+1:] {
			var rk ranking
			ch := readyChans(first, second)
			if got, want := taken(rk.next(ch), rk.next(ch)), pair(first, second); got != want {
				t.Errorf("both ready: took %v, want %v", got, want)
			}

			ch = readyChans(first, second)
			_, byselect, _ := ch.source(second, true)
			if got, want := taken(rk.outranked(ch, byselect), rk.next(ch)), pair(first, second); got != want {
				t.Errorf("select took %d: took %v, want %v", second, got, want)
			}
			if ev, ok := rk.takeFrom(ch); ok {
				t.Errorf("took %d again", ev.kind)
			}
		}
	}
}

// wait and source agree on each kind's channel: an event of each kind alone
// comes out of wait as that kind, on the channel source names.
func TestWaitAndSourceAgree(t *testing.T) {
	for _, k := range rank {
		ch := readyChans(k)
		from, _, _ := ch.source(k, false)
		if from == nil {
			t.Errorf("kind %d: source names no channel", k)
		}
		if ev := ch.wait(); ev.kind != k {
			t.Errorf("kind %d ready alone: wait took kind %d", k, ev.kind)
		}
	}
}

// What an event carries comes out with it.
func TestRankEventValues(t *testing.T) {
	var rk ranking
	ch := readyChans(evExit, evSignal, evJobStop, evLoss)
	if ev := rk.next(ch); ev.status != exitedWith(3) {
		t.Errorf("exit %+v", ev.status)
	}
	if ev := rk.next(ch); ev.signal != unix.SIGTERM {
		t.Errorf("signal %v", ev.signal)
	}
	if ev := rk.next(ch); ev.signal != unix.SIGTSTP {
		t.Errorf("job stop %v", ev.signal)
	}
	if ev := rk.next(ch); ev.loss != testLoss {
		t.Errorf("loss %+v", ev.loss)
	}
}

// An event held for later is given out only on the channel it came on: a
// signal that came with CMD's exit waits for the next loop that listens to
// signals; a ready file's failure of a run that is over never reaches the
// next run.
func TestRankHeldEventKeepsItsChannel(t *testing.T) {
	var rk ranking
	run := readyChans(evExit, evSignal)
	_, sig, _ := run.source(evSignal, true)
	rk.outranked(run, sig)
	if ev, ok := rk.takeFrom(eventChans{done: make(chan doneEvent)}); ok {
		t.Fatalf("took %d from a loop that does not listen to signals", ev.kind)
	}
	backoff := readyChans(evWaitOver)
	backoff.signals = run.signals
	if got, want := taken(rk.next(backoff), rk.next(backoff)), pair(evSignal, evWaitOver); got != want {
		t.Errorf("took %v, want %v", got, want)
	}

	run = readyChans(evExit, evReadyFailed)
	_, failed, _ := run.source(evReadyFailed, true)
	rk.outranked(run, failed)
	nextRun := readyChans(evWaitOver)
	nextRun.readyFailed = make(chan error, 1)
	if ev := rk.next(nextRun); ev.kind != evWaitOver {
		t.Errorf("took %d, want the wait's end, not the last run's failure", ev.kind)
	}
}

// What is pending as CMD exits comes with the exit, in rank order, from the
// channels of the run it ends only.
func TestRankWithExit(t *testing.T) {
	var rk ranking
	run := readyChans(evDone, evReadyFailed, evSignal)
	got := rk.withExit(eventChans{done: run.done, readyFailed: run.readyFailed})
	if len(got) != 2 || got[0].kind != evDone || got[1].kind != evReadyFailed {
		t.Fatalf("took %+v, want the done condition, then the readiness failure", got)
	}
	if ev, ok := rk.takeFrom(run); !ok || ev.kind != evSignal {
		t.Errorf("took %+v, %v; want the signal, left for the next loop", ev, ok)
	}
}

func taken(a, b loopEvent) [2]eventKind { return [2]eventKind{a.kind, b.kind} }
func pair(a, b eventKind) [2]eventKind  { return [2]eventKind{a, b} }

// Two events of one run pending at once. The rig lines them up while the
// loop is held inside a forwarded signal (fakes.onSignal), and synctest.Wait
// makes sure every goroutine has delivered before the loop goes on, so the
// loop meets both events pending. Go's select picks at random among ready
// cases, so each scenario runs often enough that a loop without a fixed
// order fails it (2^-rounds to pass by chance).
const pendingRounds = 20

// inRounds runs scenario pendingRounds times, each in its own synctest
// bubble.
func inRounds(t *testing.T, scenario func(t *testing.T)) {
	for range pendingRounds {
		synctest.Test(t, scenario)
	}
}

// heldLoop runs r and parks its loop inside the forwarding of SIGUSR1;
// release lets it go on.
func heldLoop(t *testing.T, r *rig) (c *fakeChild, release func()) {
	t.Helper()
	held, unblock := make(chan struct{}), make(chan struct{})
	r.f.onSignal = func(s sent) {
		if s.sig == unix.SIGUSR1 {
			close(held)
			<-unblock
		}
	}
	r.run()
	c = r.child()
	r.signal(unix.SIGUSR1)
	<-held
	return c, func() {
		synctest.Wait() // what the test lined up has all been delivered
		close(unblock)
		r.wantSent(c.Pid, unix.SIGUSR1)
	}
}

// The ready file of a run fails while CMD exits. The exit wins: CMD is
// restarted (the failure belonged to a run that is over), instead of
// tandem ending 125.
func TestPendingExitWinsOverReadinessFailure(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		cfg := sidecarConfig(func(s *SidecarConfig) {
			s.Restart = RestartAlways
			s.ReadyFile = "/shared/ready"
		})
		writing, failWrite := make(chan struct{}), make(chan struct{})
		r := newRig(t, cfg, failFirstWrite(writing, failWrite))
		c, release := heldLoop(t, r)
		<-writing
		c.exited <- exitedWith(1)
		close(failWrite)
		release()
		r.fire(time.Second) // the restart backoff: the exit was taken
		c = r.child()
		r.wantWrite("ready:/shared/ready")
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
}

// CMD exits while the done condition is pending: the run ends as the
// requested stop it is (exit 0, the stopped file, no restart), and no stop
// signal goes to a CMD that is gone.
func TestPendingExitWithDoneIsTheRequestedStop(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		cfg := sidecarConfig(func(s *SidecarConfig) {
			s.Restart = RestartAlways
			s.StoppedFile = "/shared/proxy.stopped"
		})
		r := newRig(t, cfg)
		c, release := heldLoop(t, r)
		c.exited <- exitedWith(1)
		r.done()
		release()
		r.wantOutcome(0, "stopped")
		r.wantWrite("stopped:/shared/proxy.stopped")
		r.noneSent()
		select {
		case <-r.f.starts:
			t.Fatal("CMD restarted although the main was done")
		default:
		}
	})
}

// The done condition and the termination signal pending at once: done
// wins, so the signal is the same stop (absorbed, not forwarded) and
// --stop-delay still lets CMD drain.
func TestPendingDoneWinsOverTerminationSignal(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		cfg := sidecarConfig(func(s *SidecarConfig) { s.StopDelay = 5 * time.Second })
		r := newRig(t, cfg)
		c, release := heldLoop(t, r)
		r.signal(unix.SIGTERM)
		r.done()
		release()
		synctest.Wait()         // both taken
		r.noneSent()            // the pod's SIGTERM was not forwarded ahead of the drain
		r.fire(5 * time.Second) // the drain was not cut short
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
		r.noneSent() // the pod's SIGTERM was absorbed, never forwarded
	})
}

// The restart backoff has passed while the done condition is pending: done
// wins, so CMD is not started again only to be stopped.
func TestPendingDoneWinsOverRestartBackoff(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		cfg := sidecarConfig(func(s *SidecarConfig) { s.Restart = RestartAlways })
		held, unblock := make(chan struct{}), make(chan struct{})
		r := newRig(t, cfg, func(f *fakes) {
			f.onTimer = func(tm timer) {
				if tm.d == time.Second {
					close(held)
					<-unblock
				}
			}
		}).run()
		r.child().exited <- exitedWith(1)
		backoff := r.timer(time.Second)
		<-held // the loop is still asking for the backoff's timer
		backoff.ch <- time.Now()
		r.done()
		synctest.Wait()
		close(unblock)
		r.wantOutcome(0, "stopped")
		select {
		case <-r.f.starts:
			t.Fatal("CMD restarted although the main was done")
		default:
		}
	})
}

// One event is held per kind: a signal held as CMD exited still reaches
// the restart backoff after the leftovers' phase held one of its own.
func TestRankHoldsOnePerKind(t *testing.T) {
	var rk ranking
	run := readyChans(evExit, evSignal)
	_, sig, _ := run.source(evSignal, true)
	rk.outranked(run, sig)
	leftovers := readyChans(evReaped, evLeftoversLook)
	_, look, _ := leftovers.source(evLeftoversLook, true)
	if ev := rk.outranked(leftovers, look); ev.kind != evReaped {
		t.Fatalf("took %d, want the reaper's news first", ev.kind)
	}
	backoff := readyChans(evWaitOver)
	backoff.signals = run.signals
	if ev := rk.next(backoff); ev.kind != evSignal || ev.signal != unix.SIGTERM {
		t.Errorf("took %+v, want the signal held with CMD's exit", ev)
	}
}
