package supervisor

import (
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// A sidecar under --outlive-main whose main holds its done file's
// lifeline, and which restarts CMD whatever its code (inject's classic
// sidecar): unmarked says no main has marked its termination yet.
func markRig(t *testing.T, unmarked bool) *rig {
	cfg := sidecarConfig(func(s *SidecarConfig) {
		s.OutliveMain, s.Restart, s.DoneFiles = 30*time.Second, RestartAlways, []string{"/shared/done"}
	})
	r := newRig(t, cfg)
	r.f.unmarked.Store(unmarked)
	return r.run()
}

// lookTimes lets n looks for a mark find none.
func lookTimes(r *rig, n int) {
	for range n {
		r.fire(markPoll)
	}
}

// The pod's deletion, the main's signal first: its mark is there when the
// sidecar's signal comes, which is held for the whole deadline at once.
func TestMarkMainSignaledFirst(t *testing.T) {
	r := markRig(t, false)
	c := r.child()
	r.signal(unix.SIGTERM)
	r.timer(30 * time.Second)
	r.noneSent()
	r.done()
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(0, "stopped")
}

// The pod's deletion, the sidecar's signal first: the main's mark comes a
// few looks later, and the hold's deadline still counts from the signal.
func TestMarkSidecarSignaledFirst(t *testing.T) {
	r := markRig(t, true)
	c := r.child()
	r.signal(unix.SIGTERM)
	lookTimes(r, 2)
	third := r.timer(markPoll)
	r.f.unmarked.Store(false)
	third.ch <- time.Now()
	deadline := r.timer(30*time.Second - 3*markPoll)
	r.noneSent()
	deadline.ch <- time.Now()
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(143, "signaled")
}

// A liveness restart: the kubelet signals the sidecar's container alone
// and no main marks its termination: after markWait the signal goes to
// CMD, and tandem ends with it, not restarting CMD, so the kubelet's
// restart of the container comes a grace period sooner.
func TestMarkSidecarSignaledAlone(t *testing.T) {
	r := markRig(t, true)
	c := r.child()
	r.signal(unix.SIGTERM)
	lookTimes(r, markPolls-1)
	r.noneSent()
	r.fire(markPoll)
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(143, "signaled")
}

// A mark whose host is not ours was written in another pod (a volume
// shared by mistake): no mark, so the signal came to this sidecar alone
// and is forwarded after the looks, with one warning that names both
// hosts. A mark of this pod's host counts.
func TestMarkOfAnotherPod(t *testing.T) {
	marked := func(t *testing.T, host string) (*rig, *logEvents) {
		logs, log := newLogEvents(t)
		cfg := sidecarConfig(func(s *SidecarConfig) {
			s.OutliveMain, s.Restart, s.DoneFiles = 30*time.Second, RestartAlways, []string{"/shared/done"}
		})
		cfg.Log = log
		return newRig(t, cfg, func(f *fakes) { f.markHost = host }).run(), logs
	}
	t.Run("another pod's: ignored", func(t *testing.T) {
		r, logs := marked(t, "another-pod")
		c := r.child()
		r.signal(unix.SIGTERM)
		lookTimes(r, markPolls)
		r.wantSent(c.Pid, unix.SIGTERM)
		warning, _ := logs.want(cmdline.EventMarkForeign)
		if warning["level"] != "warn" || warning["file_host"] != "another-pod" || warning["path"] != "/shared/done.terminating" {
			t.Errorf("warning %v; want one naming the mark and its host", warning)
		}
		if _, before := logs.want(cmdline.EventSignalAlone); slices.ContainsFunc(before, func(l map[string]any) bool {
			return l["event"] == cmdline.EventMarkForeign
		}) {
			t.Error("the warning came more than once")
		}
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(143, "signaled")
	})
	t.Run("this pod's: held", func(t *testing.T) {
		r, _ := marked(t, statusfile.Hostname())
		c := r.child()
		r.signal(unix.SIGTERM)
		r.timer(30 * time.Second)
		r.noneSent()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
}

// CMD exits while the mark is looked for: one last look decides. Marked,
// it is the restart while the main drains; not marked, the pod's signal
// came and tandem ends with CMD's code.
func TestMarkCMDExitsWhileLooking(t *testing.T) {
	t.Run("marked: restarted under the hold", func(t *testing.T) {
		r := markRig(t, true)
		c := r.child()
		r.signal(unix.SIGTERM)
		lookTimes(r, 1)
		r.timer(markPoll)
		r.f.unmarked.Store(false)
		c.exited <- exitedWith(1)
		r.timer(30*time.Second - 2*markPoll) // the second look was under way
		r.fire(time.Second)                  // the restart's backoff
		c = r.child()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
	t.Run("not marked: no restart", func(t *testing.T) {
		r := markRig(t, true)
		c := r.child()
		r.signal(unix.SIGTERM)
		r.timer(markPoll)
		c.exited <- exitedWith(1)
		r.wantOutcome(1, "exited")
		r.noneSent()
	})
}

// A main marks its termination on the signals runtimes stop containers
// with (the nginx image's STOPSIGNAL is QUIT), not on a reload's HUP.
func TestMarkMainOnStopSignals(t *testing.T) {
	t.Run("QUIT marks", func(t *testing.T) {
		cfg := mainConfig(t, nil)
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGQUIT)
		r.wantSent(c.Pid, unix.SIGQUIT)
		if f := r.wantWrite("terminating:" + markPath(cfg.Main.DoneFile)); f.Signal != "SIGQUIT" {
			t.Errorf("termination mark %+v; want SIGQUIT", f)
		}
	})
	t.Run("HUP does not", func(t *testing.T) {
		cfg := mainConfig(t, nil)
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGHUP)
		r.wantSent(c.Pid, unix.SIGHUP)
		c.exited <- exitedWith(0)
		r.wantWrite("done:" + cfg.Main.DoneFile) // the first write: no mark before it
		r.wantOutcome(0, "exited")
	})
}
