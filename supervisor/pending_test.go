package supervisor

import (
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/sys/unix"
)

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

// The cause of issue 24: the ready file of a run fails while CMD exits. The
// exit wins: CMD is restarted (the failure belonged to a run that is over),
// instead of tandem ending 125.
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
