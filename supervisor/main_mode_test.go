package supervisor

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/process"
)

func mainConfig(t *testing.T, change func(*MainConfig)) Config {
	cfg := testConfig(ModeMain)
	cfg.Name = "export"
	cfg.Main.DoneFile = filepath.Join(t.TempDir(), "done")
	if change != nil {
		change(&cfg.Main)
	}
	return cfg
}

// Whatever way CMD ends, the done file says so, and tandem ends as CMD did.
func TestMainWritesDoneFile(t *testing.T) {
	tests := []struct {
		name   string
		status process.Status
		code   int
		reason string
		signal string
	}{
		{"exit 0", exitedWith(0), 0, "exited", ""},
		{"exit 4", exitedWith(4), 4, "exited", ""},
		{"killed", killedBy(unix.SIGKILL), 137, "signaled", "SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mainConfig(t, nil)
			r := newRig(t, cfg).run()
			r.child().exited <- tt.status
			f := r.wantWrite("done:" + cfg.Main.DoneFile)
			if f.ExitCode != tt.code || f.Reason != tt.reason || f.Signal != tt.signal || f.Name != "export" {
				t.Errorf("done file %+v, want %d %s %q", f, tt.code, tt.reason, tt.signal)
			}
			r.wantOutcome(tt.code, tt.reason)
		})
	}
}

func TestMainStartFailureIsAnnounced(t *testing.T) {
	cfg := mainConfig(t, nil)
	notExec := &process.StartError{Name: "x", Err: errors.New("permission denied")}
	r := newRig(t, cfg, func(f *fakes) { f.startErr = notExec }).run()
	if f := r.wantWrite("done:" + cfg.Main.DoneFile); f.ExitCode != 126 || f.Reason != "start-failed" {
		t.Errorf("done file %+v", f)
	}
	r.wantOutcome(126, "start-failed")
}

// A done file that cannot be written fails tandem: a sidecar would wait.
func TestMainDoneFileUnwritable(t *testing.T) {
	cfg := mainConfig(t, nil)
	r := newRig(t, cfg, func(f *fakes) { f.writeErr = func(string) error { return errors.New("read-only") } }).run()
	r.child().exited <- exitedWith(0)
	r.wantOutcome(125, "error")
}

// --wait-for: on timeout CMD is not started, exit 1, the done file still
// says so; a signal during the wait ends tandem as interrupted.
func TestMainWaitFor(t *testing.T) {
	never, err := probe.Parse("file:" + filepath.Join(t.TempDir(), "never"))
	if err != nil {
		t.Fatal(err)
	}
	waiting := func(timeout time.Duration) func(*MainConfig) {
		return func(m *MainConfig) {
			m.WaitFor, m.WaitTimeout, m.WaitInterval = []probe.Condition{never}, timeout, 10*time.Millisecond
		}
	}
	t.Run("timeout", func(t *testing.T) {
		cfg := mainConfig(t, waiting(50*time.Millisecond))
		r := newRig(t, cfg).run()
		if f := r.wantWrite("done:" + cfg.Main.DoneFile); f.Reason != "wait-timeout" || f.ExitCode != 1 {
			t.Errorf("done file %+v", f)
		}
		r.wantOutcome(1, "wait-timeout")
	})
	t.Run("interrupted", func(t *testing.T) {
		cfg := mainConfig(t, waiting(time.Hour))
		r := newRig(t, cfg).run()
		r.signal(unix.SIGUSR1) // ignored: no CMD yet
		r.signal(unix.SIGTERM)
		if f := r.wantWrite("done:" + cfg.Main.DoneFile); f.Reason != "interrupted" || f.ExitCode != 143 || f.Signal != "SIGTERM" {
			t.Errorf("done file %+v", f)
		}
		r.wantOutcome(143, "interrupted")
	})
	t.Run("holds", func(t *testing.T) {
		holds, _ := probe.Parse("file:" + t.TempDir())
		cfg := mainConfig(t, func(m *MainConfig) { m.WaitFor = []probe.Condition{holds} })
		r := newRig(t, cfg).run()
		r.child().exited <- exitedWith(0)
		r.wantWrite("done:" + cfg.Main.DoneFile)
		r.wantOutcome(0, "exited")
	})
}

// Quit URLs are called after the done file; a terminating signal while the
// peers are looked for ends the search, not the exit code.
func TestMainAnnounces(t *testing.T) {
	url, _ := probe.ParseURL("http://127.0.0.1:15020/quitquitquit")
	cfg := mainConfig(t, func(m *MainConfig) { m.QuitURLs = []probe.Target{url} })
	r := newRig(t, cfg).run()
	r.child().exited <- exitedWith(3)
	r.wantWrite("done:" + cfg.Main.DoneFile)
	if got := <-r.f.quits; len(got) != 1 {
		t.Fatalf("quit URLs %v", got)
	}
	r.wantOutcome(3, "exited")

	cfg = mainConfig(t, func(m *MainConfig) { m.Peers.Enabled, m.Peers.Timeout = true, time.Hour })
	r = newRig(t, cfg).run()
	r.child().exited <- exitedWith(0)
	r.wantWrite("done:" + cfg.Main.DoneFile)
	r.signal(unix.SIGTERM)
	r.wantOutcome(0, "exited")
}

// --termination-grace: after the pod's SIGTERM (forwarded to CMD), CMD has
// D to exit, then SIGKILL; the done file says how CMD really ended. A CMD
// that exits in time is not killed; without the flag, nothing is.
func TestMainTerminationGrace(t *testing.T) {
	graced := func(t *testing.T) Config {
		return mainConfig(t, func(m *MainConfig) { m.TerminationGrace = 25 * time.Second })
	}
	t.Run("CMD ignores SIGTERM: killed after the grace", func(t *testing.T) {
		cfg := graced(t)
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		r.wantSent(c.Pid, unix.SIGTERM)
		if f := r.wantWrite("terminating:" + markPath(cfg.Main.DoneFile)); f.Signal != "SIGTERM" {
			t.Errorf("termination mark %+v; want the signal that came, SIGTERM", f)
		}
		r.fire(25 * time.Second)
		r.wantSent(c.Pid, unix.SIGKILL)
		c.exited <- killedBy(unix.SIGKILL)
		if f := r.wantWrite("done:" + cfg.Main.DoneFile); f.Reason != "signaled" || f.Signal != "SIGKILL" || f.ExitCode != 137 {
			t.Errorf("done file %+v; want signaled by SIGKILL, 137", f)
		}
		r.wantOutcome(137, "signaled")
	})
	// The stock images' STOPSIGNALs: nginx's QUIT, postgres's INT.
	for _, sig := range []unix.Signal{unix.SIGQUIT, unix.SIGINT} {
		t.Run("CMD ignores "+signals.Name(sig)+": killed after the grace", func(t *testing.T) {
			cfg := graced(t)
			r := newRig(t, cfg).run()
			c := r.child()
			r.signal(sig)
			r.wantSent(c.Pid, sig)
			r.wantWrite("terminating:" + markPath(cfg.Main.DoneFile))
			r.fire(25 * time.Second)
			r.wantSent(c.Pid, unix.SIGKILL)
			c.exited <- killedBy(unix.SIGKILL)
			r.wantWrite("done:" + cfg.Main.DoneFile)
			r.wantOutcome(137, "signaled")
		})
	}
	t.Run("CMD exits in time", func(t *testing.T) {
		cfg := graced(t)
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGTERM)
		r.wantSent(c.Pid, unix.SIGTERM)
		r.wantWrite("terminating:" + markPath(cfg.Main.DoneFile))
		r.timer(25 * time.Second)
		c.exited <- killedBy(unix.SIGTERM)
		r.wantWrite("done:" + cfg.Main.DoneFile)
		r.wantOutcome(143, "signaled")
		r.noneSent()
	})
	t.Run("other signals start no clock", func(t *testing.T) {
		cfg := graced(t)
		r := newRig(t, cfg).run()
		c := r.child()
		r.signal(unix.SIGHUP)
		r.wantSent(c.Pid, unix.SIGHUP)
		c.exited <- exitedWith(0)
		r.wantWrite("done:" + cfg.Main.DoneFile)
		r.wantOutcome(0, "exited")
	})
}
