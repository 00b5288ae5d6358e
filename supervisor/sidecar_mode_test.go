package supervisor

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/probe"
)

func sidecarConfig(change func(*SidecarConfig)) Config {
	cfg := testConfig(ModeSidecar)
	cfg.Grace = 3 * time.Second
	if change != nil {
		change(&cfg.Sidecar)
	}
	return cfg
}

// The requested stop: the stop signal, then grace, then SIGKILL; tandem
// exits 0 whatever CMD died of.
func TestSidecarStopSequence(t *testing.T) {
	tests := []struct {
		name   string
		trig   func(r *rig)
		killed bool
	}{
		{"done condition, CMD leaves on the stop signal", (*rig).done, false},
		{"done signal, CMD leaves on the stop signal", func(r *rig) { r.signal(unix.SIGUSR2) }, false},
		{"done condition, CMD needs SIGKILL", (*rig).done, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, sidecarConfig(nil)).run()
			c := r.child()
			tt.trig(r)
			r.wantSent(c.Pid, unix.SIGTERM)
			if tt.killed {
				r.fire(3 * time.Second)
				r.wantSent(c.Pid, unix.SIGKILL)
				c.exited <- killedBy(unix.SIGKILL)
			} else {
				c.exited <- killedBy(unix.SIGTERM)
			}
			r.wantOutcome(0, "stopped")
		})
	}
}

func TestSidecarDoneBeforeStart(t *testing.T) {
	r := newRig(t, sidecarConfig(nil))
	r.source.already = true
	r.run().wantOutcome(0, "stopped")
	select {
	case <-r.f.starts:
		t.Fatal("CMD started although the main was done")
	default:
	}
}

// Quit URLs first, then grace for CMD to leave by itself, then the stop
// signal; a CMD that leaves after the call gets no signal.
func TestSidecarQuitURLs(t *testing.T) {
	url, err := probe.ParseURL("http://127.0.0.1:15020/quitquitquit")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sidecarConfig(func(s *SidecarConfig) { s.QuitURLs = []probe.Target{url} })
	for _, leaves := range []bool{true, false} {
		r := newRig(t, cfg).run()
		c := r.child()
		r.done()
		if got := <-r.f.quits; len(got) != 1 || got[0] != url {
			t.Fatalf("quit called with %v", got)
		}
		if leaves {
			c.exited <- exitedWith(0)
			r.wantOutcome(0, "stopped")
			r.noneSent()
			continue
		}
		r.fire(3 * time.Second)
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- exitedWith(0)
		r.wantOutcome(0, "stopped")
	}
}

// A program that exits on its quit call before the call has its answer (as
// cloud-sql-proxy does): tandem ends after the call does, so its outcome is
// logged, and waits no more than quitAfterExit for a call that hangs.
func TestSidecarQuitOutcomeOutlivesTheProgram(t *testing.T) {
	url, err := probe.ParseURL("http://127.0.0.1:9801/quitquitquit")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sidecarConfig(func(s *SidecarConfig) { s.QuitURLs = []probe.Target{url} })
	for _, answers := range []bool{true, false} {
		r := newRig(t, cfg)
		r.f.quitAnswers, r.f.quitEnded = make(chan struct{}), make(chan string, 1)
		r.run()
		c := r.child()
		r.done()
		<-r.f.quits
		c.exited <- exitedWith(0)
		wait := r.timer(quitAfterExit)
		want := "cancelled"
		if answers {
			want = "answered"
			close(r.f.quitAnswers)
		} else {
			wait.ch <- time.Now()
		}
		r.wantOutcome(0, "stopped")
		select {
		case got := <-r.f.quitEnded:
			if got != want {
				t.Errorf("quit call %s; want %s", got, want)
			}
		default:
			t.Fatal("tandem ended before its quit call did")
		}
	}
}

// --stop-delay holds the stop signal; neither a second done source nor the
// termination signal shortens it.
func TestSidecarStopDelay(t *testing.T) {
	r := newRig(t, sidecarConfig(func(s *SidecarConfig) { s.StopDelay = 2 * time.Second })).run()
	c := r.child()
	r.done()
	delay := r.timer(2 * time.Second)
	r.signal(unix.SIGUSR2)
	r.signal(unix.SIGTERM)
	r.signal(unix.SIGWINCH) // other signals are forwarded meanwhile
	r.wantSent(c.Pid, unix.SIGWINCH)
	delay.ch <- time.Now()
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(0, "stopped")
	r.noneSent()
}

// During a requested stop the termination signal is the same request: not
// forwarded (pgbouncer would switch from its safe INT stop to a fast exit).
func TestSidecarTerminationSignalDuringStop(t *testing.T) {
	cfg := sidecarConfig(nil)
	cfg.StopSignal = unix.SIGINT
	r := newRig(t, cfg).run()
	c := r.child()
	r.done()
	r.wantSent(c.Pid, unix.SIGINT)
	r.signal(unix.SIGTERM)
	r.signal(unix.SIGHUP)
	r.wantSent(c.Pid, unix.SIGHUP)
	c.exited <- exitedWith(0)
	r.wantOutcome(0, "stopped")
	r.noneSent()
}

// --outlive-main holds the termination signal until the main is done (a
// requested stop, exit 0) or the deadline (forwarded, exit as run).
func TestSidecarOutliveMain(t *testing.T) {
	outlive := func(sig unix.Signal) Config {
		return sidecarConfig(func(s *SidecarConfig) { s.OutliveMain = 30 * time.Second; s.TerminationSignal = sig })
	}
	t.Run("main done first", func(t *testing.T) {
		r := newRig(t, outlive(unix.SIGTERM)).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		r.timer(30 * time.Second)
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM) // the stop signal
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
		r.noneSent()
	})
	t.Run("deadline first", func(t *testing.T) {
		r := newRig(t, outlive(unix.SIGTERM)).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		r.fire(30 * time.Second)
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(143, "signaled")
	})
	t.Run("the image's STOPSIGNAL is the one held", func(t *testing.T) {
		r := newRig(t, outlive(unix.SIGQUIT)).run()
		c := r.child()
		r.signal(unix.SIGTERM) // not this container's termination signal: forwarded
		r.wantSent(c.Pid, unix.SIGTERM)
		r.signal(unix.SIGQUIT)
		r.timer(30 * time.Second)
		r.noneSent()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- exitedWith(0)
		r.wantOutcome(0, "stopped")
	})
	t.Run("no main holds a lifeline: nothing to outlive, forwarded at once", func(t *testing.T) {
		cfg := outlive(unix.SIGTERM)
		cfg.Sidecar.DoneFiles = []string{"/shared/done"}
		r := newRig(t, cfg)
		r.f.noMain.Store(true)
		r.run()
		c := r.child()
		r.signal(unix.SIGTERM)
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(143, "signaled")
	})
	t.Run("a main holds a lifeline: held", func(t *testing.T) {
		cfg := outlive(unix.SIGTERM)
		cfg.Sidecar.DoneFiles = []string{"/shared/done"}
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		r.timer(30 * time.Second)
		r.noneSent()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
	t.Run("deadline during stop-delay", func(t *testing.T) {
		cfg := outlive(unix.SIGTERM)
		cfg.Sidecar.StopDelay = 5 * time.Second
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		deadline := r.timer(30 * time.Second)
		r.done()
		r.timer(5 * time.Second)
		deadline.ch <- time.Now()
		r.wantSent(c.Pid, unix.SIGTERM) // released, and the delay is over
		r.fire(3 * time.Second)         // grace, then SIGKILL
		r.wantSent(c.Pid, unix.SIGKILL)
		c.exited <- killedBy(unix.SIGKILL)
		r.wantOutcome(0, "stopped")
	})
}

// --restart: backoff between runs; the done condition or a terminating
// signal during the backoff ends tandem; no restart once the pod goes away.
func TestSidecarRestart(t *testing.T) {
	restart := func(p RestartPolicy) Config { return sidecarConfig(func(s *SidecarConfig) { s.Restart = p }) }
	t.Run("restarted after backoff, then done", func(t *testing.T) {
		r := newRig(t, restart(RestartOnFailure)).run()
		r.child().exited <- exitedWith(1)
		r.fire(time.Second)
		c := r.child()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
	t.Run("on-failure does not restart a clean exit", func(t *testing.T) {
		r := newRig(t, restart(RestartOnFailure)).run()
		r.child().exited <- exitedWith(0)
		r.wantOutcome(0, "exited")
	})
	t.Run("done during backoff", func(t *testing.T) {
		r := newRig(t, restart(RestartAlways)).run()
		r.child().exited <- exitedWith(0)
		r.timer(time.Second)
		r.done()
		r.wantOutcome(0, "stopped")
	})
	t.Run("done signal during backoff", func(t *testing.T) {
		r := newRig(t, restart(RestartAlways)).run()
		r.child().exited <- exitedWith(0)
		r.timer(time.Second)
		r.signal(unix.SIGWINCH) // ignored: no CMD
		r.signal(unix.SIGUSR2)
		r.wantOutcome(0, "stopped")
	})
	t.Run("termination signal during backoff", func(t *testing.T) {
		r := newRig(t, restart(RestartAlways)).run()
		r.child().exited <- exitedWith(0)
		r.timer(time.Second)
		r.signal(unix.SIGTERM)
		out := r.wantOutcome(143, "interrupted")
		if out.signal != "SIGTERM" {
			t.Errorf("signal %q", out.signal)
		}
	})
	duringDeletion := func(t *testing.T, marked bool) *rig {
		cfg := sidecarConfig(func(s *SidecarConfig) { s.Restart, s.DoneFiles = RestartDuringDeletion, []string{"/shared/done"} })
		r := newRig(t, cfg)
		r.f.unmarked.Store(!marked)
		return r.run()
	}
	t.Run("during-deletion: a main marked its termination, restarted whatever the code, then done", func(t *testing.T) {
		r := duringDeletion(t, true)
		r.child().exited <- exitedWith(0)
		r.fire(time.Second)
		c := r.child()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- exitedWith(1)
		r.wantOutcome(0, "stopped")
	})
	t.Run("during-deletion: no mark, the program's code ends tandem", func(t *testing.T) {
		r := duringDeletion(t, false)
		r.child().exited <- killedBy(unix.SIGKILL)
		r.wantOutcome(137, "signaled")
	})
	t.Run("no restart after the pod's SIGTERM", func(t *testing.T) {
		r := newRig(t, restart(RestartAlways)).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(143, "signaled")
	})
}

// failFirstWrite makes the first file write of the rig close writing, wait
// for failWrite, then fail as on a read-only file system; the others pass.
func failFirstWrite(writing, failWrite chan struct{}) func(*fakes) {
	return func(f *fakes) {
		first := true
		f.writeErr = func(string) error {
			if !first {
				return nil
			}
			first = false
			close(writing)
			<-failWrite
			return errors.New("read-only file system")
		}
	}
}

// A readiness failure belongs to its run: one from a run that ended must
// not stop the next (the old shared channel did, or deadlocked).
func TestSidecarReadinessFailureDoesNotOutliveItsRun(t *testing.T) {
	release := make(chan struct{})
	failed := make(chan struct{})
	cfg := sidecarConfig(func(s *SidecarConfig) {
		s.Restart = RestartAlways
		s.ReadyFile = "/shared/ready"
	})
	r := newRig(t, cfg, failFirstWrite(failed, release)).run()
	c := r.child()
	<-failed                  // the first run's ready file cannot be written...
	c.exited <- exitedWith(1) // ...but CMD ends first
	close(release)
	r.fire(time.Second)
	c = r.child()
	r.wantWrite("ready:/shared/ready") // the second run's readiness
	r.done()
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(0, "stopped")
}

// A ready file that cannot be written fails tandem (125) and stops CMD.
func TestSidecarReadinessFailure(t *testing.T) {
	cfg := sidecarConfig(func(s *SidecarConfig) { s.ReadyFile = "/shared/ready" })
	r := newRig(t, cfg, func(f *fakes) { f.writeErr = func(string) error { return errors.New("no space left") } }).run()
	c := r.child()
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(125, "error")
}

// --stopped-file is written after a requested stop only.
func TestSidecarStoppedFile(t *testing.T) {
	cfg := sidecarConfig(func(s *SidecarConfig) { s.StoppedFile = "/shared/proxy.stopped" })
	r := newRig(t, cfg).run()
	c := r.child()
	r.done()
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(0, "stopped")
	if f := r.wantWrite("stopped:/shared/proxy.stopped"); f.Reason != "stopped" || f.ExitCode != 0 {
		t.Errorf("stopped file %+v", f)
	}

	r = newRig(t, cfg).run()
	r.child().exited <- exitedWith(1) // crashed: not a stop
	r.wantOutcome(1, "exited")
	select {
	case f := <-r.f.writes:
		t.Fatalf("wrote %+v after a crash", f)
	default:
	}
}

// The main done while no CMD runs is a requested stop as well: the stopped
// file is written, so a sidecar that waits on this one stops after it.
func TestSidecarStoppedFileWithoutCMD(t *testing.T) {
	cfg := sidecarConfig(func(s *SidecarConfig) {
		s.StoppedFile = "/shared/proxy.stopped"
		s.Restart = RestartOnFailure
	})
	t.Run("done before the start", func(t *testing.T) {
		r := newRig(t, cfg)
		r.source.already = true
		r.run().wantOutcome(0, "stopped")
		r.wantWrite("stopped:/shared/proxy.stopped")
	})
	t.Run("done during the restart backoff", func(t *testing.T) {
		r := newRig(t, cfg).run()
		r.child().exited <- exitedWith(1)
		r.timer(time.Second) // the backoff began
		r.done()
		r.wantOutcome(0, "stopped")
		r.wantWrite("stopped:/shared/proxy.stopped")
	})
}

// The main peer's end after its done signal (its pidfd can come second) is
// the same news: the stop under way goes on, with no second stop signal and
// one done-seen line, the signal's.
func TestSidecarDoneTwice(t *testing.T) {
	logs, log := newLogEvents(t)
	cfg := sidecarConfig(nil)
	cfg.Log = log
	r := newRig(t, cfg).run()
	c := r.child()
	r.signal(unix.SIGUSR2)
	r.wantSent(c.Pid, unix.SIGTERM)
	r.done()
	r.fire(3 * time.Second) // the done event outranks the timer: taken first
	r.wantSent(c.Pid, unix.SIGKILL)
	c.exited <- killedBy(unix.SIGKILL)
	r.wantOutcome(0, "stopped")
	r.noneSent()
	_, lines := logs.end(log)
	var seen []map[string]any
	for _, line := range lines {
		if line["event"] == "done-seen" && line["level"] == "info" {
			seen = append(seen, line)
		}
	}
	if len(seen) != 1 || seen[0]["source"] != "done-signal" {
		t.Fatalf("done-seen lines %v, want one, from the done signal", seen)
	}
}

// --max-restarts N within --restart-window: the N+1-th crash ends tandem
// with CMD's last code, reason restart-limit; a sidecar that recovers
// inside the budget goes on; the done condition during a backoff still
// ends it as a requested stop.
func TestSidecarRestartBudget(t *testing.T) {
	budget := func(max int) Config {
		return sidecarConfig(func(s *SidecarConfig) {
			s.Restart, s.MaxRestarts, s.RestartWindow = RestartAlways, max, 10*time.Minute
		})
	}
	t.Run("spent: the third crash of two allowed", func(t *testing.T) {
		r := newRig(t, budget(2)).run()
		r.child().exited <- exitedWith(1)
		r.fire(time.Second)
		r.child().exited <- exitedWith(1)
		r.fire(2 * time.Second)
		r.child().exited <- killedBy(unix.SIGSEGV)
		r.wantOutcome(128+int(unix.SIGSEGV), "restart-limit")
	})
	// --restart always restarts clean exits and counts them: a budget spent
	// on them is no success, and they are not called crashes.
	t.Run("spent on clean exits: exit 1", func(t *testing.T) {
		r := newRig(t, budget(1)).run()
		r.child().exited <- exitedWith(1)
		r.fire(time.Second)
		r.child().exited <- exitedWith(0)
		out := r.wantOutcome(1, "restart-limit")
		if out.err == nil || out.err.Error() != "CMD exited 2 times within 10m0s (--max-restarts 1), 1 of them cleanly" {
			t.Fatalf("error %v; want one that counts the exits and the clean ones apart", out.err)
		}
	})
	t.Run("recovered inside the budget", func(t *testing.T) {
		r := newRig(t, budget(2)).run()
		r.child().exited <- exitedWith(1)
		r.fire(time.Second)
		c := r.child()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
	t.Run("done during the backoff", func(t *testing.T) {
		r := newRig(t, budget(1)).run()
		r.child().exited <- exitedWith(1)
		r.timer(time.Second)
		r.done()
		r.wantOutcome(0, "stopped")
	})
}

// The budget counts the crashes within the window only: spread wider, no
// limit is hit.
func TestRestartBudgetWindow(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		crashes []time.Duration // after start
		max     int
		spent   bool
	}{
		{"three within the window, two allowed", []time.Duration{0, time.Minute, 2 * time.Minute}, 2, true},
		{"three spread wider than the window", []time.Duration{0, 6 * time.Minute, 12 * time.Minute}, 2, false},
		{"the oldest fell out of the window", []time.Duration{0, 9 * time.Minute, 11 * time.Minute}, 2, false},
		{"no limit", []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}, 0, false},
	} {
		var b restartBudget
		spent := false
		for _, at := range tt.crashes {
			spent = b.exited(start.Add(at), exitedWith(1), tt.max, 10*time.Minute)
		}
		if spent != tt.spent {
			t.Errorf("%s: spent %v; want %v", tt.name, spent, tt.spent)
		}
	}
}

// While the termination signal is held (the pod is being deleted, the main
// still drains), a CMD that exits is restarted as --restart says, within
// the hold's deadline; then the main's end or the deadline stops tandem as
// before.
func TestSidecarRestartWhileMainDrains(t *testing.T) {
	draining := func() Config {
		return sidecarConfig(func(s *SidecarConfig) {
			s.Restart, s.OutliveMain = RestartAlways, 30*time.Second
		})
	}
	crashWhileHeld := func(t *testing.T) (*rig, timer) {
		r := newRig(t, draining()).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		deadline := r.timer(30 * time.Second)
		c.exited <- exitedWith(1)
		return r, deadline
	}
	t.Run("crash, then the main is done", func(t *testing.T) {
		r, _ := crashWhileHeld(t)
		r.fire(time.Second) // the backoff
		c := r.child()      // started again, still under the hold
		r.noneSent()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
	t.Run("the main done during the backoff", func(t *testing.T) {
		r, _ := crashWhileHeld(t)
		r.timer(time.Second)
		r.done()
		r.wantOutcome(0, "stopped")
	})
	t.Run("the deadline during the backoff", func(t *testing.T) {
		r, deadline := crashWhileHeld(t)
		r.timer(time.Second)
		deadline.ch <- time.Now()
		r.wantOutcome(143, "interrupted")
	})
	t.Run("the deadline after the restart", func(t *testing.T) {
		r, deadline := crashWhileHeld(t)
		r.fire(time.Second)
		c := r.child()
		deadline.ch <- time.Now()
		r.wantSent(c.Pid, unix.SIGTERM) // released to the restarted CMD
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(143, "signaled")
	})
}

// The pod's termination signal during a restart backoff, with
// --outlive-main and a main to outlive: held as while CMD runs, so CMD is
// restarted after the backoff, within the deadline, while the main drains;
// then the main's end stops it (exit 0). A signal to this container alone
// still ends the backoff, once no main marked its termination.
func TestSidecarHoldDuringBackoff(t *testing.T) {
	crashed := func(t *testing.T, unmarked bool) (*rig, timer) {
		cfg := sidecarConfig(func(s *SidecarConfig) {
			s.Restart, s.OutliveMain, s.DoneFiles = RestartAlways, 30*time.Second, []string{"/shared/done"}
		})
		r := newRig(t, cfg)
		r.f.unmarked.Store(unmarked)
		r.run()
		r.child().exited <- exitedWith(1)
		backoff := r.timer(time.Second)
		r.signal(unix.SIGTERM)
		return r, backoff
	}
	t.Run("held: restarted, then the main is done", func(t *testing.T) {
		r, backoff := crashed(t, false)
		r.timer(30 * time.Second) // held: the deadline runs
		backoff.ch <- time.Now()
		c := r.child() // started again under the hold
		r.noneSent()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
	t.Run("held: the deadline passes after the restart", func(t *testing.T) {
		r, backoff := crashed(t, false)
		deadline := r.timer(30 * time.Second)
		backoff.ch <- time.Now()
		c := r.child()
		deadline.ch <- time.Now()
		r.wantSent(c.Pid, unix.SIGTERM) // released to the restarted CMD
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(143, "signaled")
	})
	t.Run("held: the deadline passes during the backoff", func(t *testing.T) {
		r, _ := crashed(t, false)
		r.fire(30 * time.Second)
		r.wantOutcome(143, "interrupted")
	})
	t.Run("the main marks it a few looks later: held from the signal", func(t *testing.T) {
		r, backoff := crashed(t, true)
		lookTimes(r, 2)
		third := r.timer(markPoll)
		r.f.unmarked.Store(false)
		third.ch <- time.Now()
		r.timer(30*time.Second - 3*markPoll)
		backoff.ch <- time.Now()
		c := r.child()
		r.done()
		r.wantSent(c.Pid, unix.SIGTERM)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(0, "stopped")
	})
	t.Run("the backoff passes while looking: the restart waits for the answer", func(t *testing.T) {
		r, backoff := crashed(t, true)
		look := r.timer(markPoll)
		backoff.ch <- time.Now()
		look.ch <- time.Now()
		lookTimes(r, markPolls-2)
		r.fire(markPoll)
		out := r.wantOutcome(143, "interrupted")
		if out.signal != "SIGTERM" {
			t.Errorf("signal %q", out.signal)
		}
		select {
		case <-r.f.starts:
			t.Fatal("CMD restarted for a signal to this container alone")
		default:
		}
	})
}
