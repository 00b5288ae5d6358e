package supervisor

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/supervisor/process"
)

// run mode: tandem ends as CMD ends.
func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name    string
		success []int
		status  process.Status
		code    int
		reason  string
		signal  string
	}{
		{"exit 0", nil, exitedWith(0), 0, "exited", ""},
		{"exit 3", nil, exitedWith(3), 3, "exited", ""},
		{"killed", nil, killedBy(unix.SIGKILL), 137, "signaled", "SIGKILL"},
		{"success code", []int{3}, exitedWith(3), 0, "exited", ""},
		{"success code for a signal", []int{143}, killedBy(unix.SIGTERM), 0, "signaled", "SIGTERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(ModeRun)
			cfg.SuccessCodes = tt.success
			r := newRig(t, cfg).run()
			r.child().exited <- tt.status
			out := r.wantOutcome(tt.code, tt.reason)
			if out.signal != tt.signal {
				t.Errorf("signal %q, want %q", out.signal, tt.signal)
			}
		})
	}
}

func TestRunStartFailure(t *testing.T) {
	notFound := &process.StartError{Name: "nope", NotFound: true, Err: errors.New("not found")}
	r := newRig(t, testConfig(ModeRun), func(f *fakes) { f.startErr = notFound }).run()
	out := r.wantOutcome(127, "start-failed")
	if !errors.Is(out.err, notFound) {
		t.Errorf("err %v, want the start error", out.err)
	}
}

// Signals go to CMD's group, rewritten; a rewrite to 0 drops one; with
// --child-only to CMD alone.
func TestRunForwardsSignals(t *testing.T) {
	cfg := testConfig(ModeRun)
	cfg.Rewrite = map[unix.Signal]unix.Signal{unix.SIGTERM: unix.SIGQUIT, unix.SIGHUP: signals.Drop}
	r := newRig(t, cfg).run()
	c := r.child()
	r.signal(unix.SIGHUP) // dropped
	r.signal(unix.SIGTERM)
	r.wantSent(c.Pid, unix.SIGQUIT)
	r.signal(unix.SIGUSR1)
	if s := <-r.f.sent; s.sig != unix.SIGUSR1 || !s.group {
		t.Fatalf("sent %+v, want SIGUSR1 to the group", s)
	}
	c.exited <- exitedWith(0)
	r.wantOutcome(0, "exited")
	r.noneSent()

	cfg.ChildOnly = true
	r = newRig(t, cfg).run()
	c = r.child()
	r.signal(unix.SIGINT)
	if s := <-r.f.sent; s.sig != unix.SIGINT || s.group || s.pid != c.Pid {
		t.Fatalf("sent %+v, want SIGINT to CMD alone", s)
	}
	c.exited <- exitedWith(0)
	r.wantOutcome(0, "exited")
}

// What CMD left in its group gets the stop signal and SIGCONT, then SIGKILL
// after grace, before tandem ends.
func TestRunStopsLeftovers(t *testing.T) {
	cfg := testConfig(ModeRun)
	cfg.Grace = 7 * time.Second
	killed := make(chan struct{})
	r := newRig(t, cfg, func(f *fakes) {
		f.alive = func(int) bool {
			select {
			case <-killed:
				return false
			default:
				return true
			}
		}
	}).run()
	c := r.child()
	c.exited <- exitedWith(0)
	r.wantSent(c.Pid, unix.SIGTERM)
	r.wantSent(c.Pid, unix.SIGCONT)
	r.fire(cfg.Grace)
	r.wantSent(c.Pid, unix.SIGKILL)
	close(killed)
	// The reaper collected the last of them. The loop may have seen the
	// group gone already and ended: then there is nobody to wake.
	select {
	case r.f.reaped <- struct{}{}:
	case out := <-r.out:
		r.out <- out
	}
	r.wantOutcome(0, "exited")
}

// Ctrl-Z under a shell: tandem takes the terminal and stops itself; on fg
// (SIGCONT) it gives the terminal back before passing SIGCONT on. As PID 1
// nothing happens.
func TestJobControl(t *testing.T) {
	r := newRig(t, testConfig(ModeRun), func(f *fakes) { f.jobs = true }).run()
	c := r.child()
	c.stopped <- unix.SIGTSTP
	for _, want := range []string{"take", "stop-self"} {
		if got := <-r.f.terminal; got != want {
			t.Fatalf("terminal %q, want %q", got, want)
		}
	}
	r.signal(unix.SIGCONT)
	if got := <-r.f.terminal; got != "give" {
		t.Fatalf("terminal %q, want give", got)
	}
	r.wantSent(c.Pid, unix.SIGCONT)
	c.exited <- exitedWith(0)
	r.wantOutcome(0, "exited")

	r = newRig(t, testConfig(ModeRun)).run() // not under a shell
	c = r.child()
	c.stopped <- unix.SIGTSTP
	r.signal(unix.SIGCONT)
	r.wantSent(c.Pid, unix.SIGCONT)
	select {
	case got := <-r.f.terminal:
		t.Fatalf("terminal %q without job control", got)
	default:
	}
	c.exited <- exitedWith(0)
	r.wantOutcome(0, "exited")
}
