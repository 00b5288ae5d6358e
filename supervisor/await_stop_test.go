package supervisor

import (
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

func awaitingConfig(change func(*SidecarConfig)) Config {
	return sidecarConfig(func(s *SidecarConfig) {
		s.AwaitTermination = true
		if change != nil {
			change(s)
		}
	})
}

// stillUp fails when tandem has ended: everything it runs is blocked, so
// an end would be there.
func (r *rig) stillUp() {
	r.t.Helper()
	synctest.Wait()
	select {
	case out := <-r.out:
		r.t.Fatalf("tandem ended (%d %q) before its container's stop signal", out.code, out.reason)
	default:
	}
}

// --await-termination: after the requested stop, tandem stays up until the
// container's stop (the kubelet's, once it has seen the mains end), which
// ends it with the stop's 0: any signal but the done signal, as an image's
// STOPSIGNAL may be one tandem was not told of.
func TestAwaitTerminationAfterRequestedStop(t *testing.T) {
	for _, stop := range []unix.Signal{unix.SIGTERM, unix.SIGINT, unix.SIGQUIT, unix.SIGHUP, unix.SIGUSR1} {
		t.Run(signals.Name(stop), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, awaitingConfig(nil)).run()
				c := r.child()
				r.done()
				r.wantSent(c.Pid, unix.SIGTERM)
				c.exited <- killedBy(unix.SIGTERM)
				r.stillUp()
				r.signal(unix.SIGUSR2) // the done signal: done already
				r.stillUp()
				r.signal(stop)
				r.wantOutcome(0, "stopped")
				r.noneSent()
			})
		})
	}
}

// The container's stop signal already came (absorbed during the stop, or
// forwarded to a CMD that then ended as the main was done): nothing is left
// to wait for.
func TestAwaitTerminationStopAlreadyAsked(t *testing.T) {
	t.Run("absorbed during the stop", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, awaitingConfig(nil)).run()
			c := r.child()
			r.done()
			r.wantSent(c.Pid, unix.SIGTERM)
			r.signal(unix.SIGTERM)
			synctest.Wait() // taken while CMD stops
			c.exited <- killedBy(unix.SIGTERM)
			r.wantOutcome(0, "stopped")
			r.noneSent()
		})
	})
	t.Run("the termination signal held, then done", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, awaitingConfig(func(s *SidecarConfig) { s.OutliveMain = time.Minute })).run()
			c := r.child()
			r.signal(unix.SIGTERM)
			synctest.Wait() // held: a main holds its lifeline
			r.noneSent()
			r.done()
			r.wantSent(c.Pid, unix.SIGTERM)
			c.exited <- killedBy(unix.SIGTERM)
			r.wantOutcome(0, "stopped")
		})
	})
}

// Only a requested stop is awaited: a CMD that ends on its own ends tandem
// with its code at once, so the runtime sees it and restarts the container.
func TestAwaitTerminationNotAfterCrash(t *testing.T) {
	r := newRig(t, awaitingConfig(nil)).run()
	c := r.child()
	c.exited <- exitedWith(3)
	r.wantOutcome(3, "exited")
}

// The main was done before CMD started: no CMD to stop, and the container
// still waits for its stop signal.
func TestAwaitTerminationDoneBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, awaitingConfig(nil))
		r.source.already = true
		r.run().stillUp()
		r.signal(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
		select {
		case <-r.f.starts:
			t.Fatal("CMD started although the main was done")
		default:
		}
	})
}

// --rewrite TERM:0 (Argo's executor in front signals at will): a SIGTERM
// dropped while CMD runs is no stop of the container, so the wait comes;
// the SIGTERM after it ends the wait, as no CMD is left to spare it.
func TestAwaitTerminationRewriteToDrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := awaitingConfig(nil)
		cfg.Rewrite = map[unix.Signal]unix.Signal{unix.SIGTERM: signals.Drop}
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		synctest.Wait()
		r.noneSent()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.stillUp()
		r.signal(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
}
