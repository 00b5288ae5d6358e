package integration

import (
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// --restart on-failure: a sidecar CMD that crashes before the main is done is
// started again, with backoff (1s first).
func TestSidecarRestartOnFailure(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	state, done, out := inDir(dir, "state"), inDir(dir, "done"), inDir(dir, "signals")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--restart", "on-failure", "--poll-interval", "1h", "--done-file", done},
		helper("sc-crash-once", state, out))...)
	restarting := p.waitEvent("restarting")
	if restarting.Num("exit_code") != 3 || restarting.Field("level") != "warn" {
		t.Fatalf("restart line: %v", restarting)
	}
	waitReadyPID(t, out) // the second run is up
	if n := len(p.scLinesWith("cmd-started")); n != 2 {
		t.Fatalf("CMD started %d times, want 2", n)
	}
	scWriteFile(t, done, "")
	p.scWantExit(0, "stopped")
	p.scWantOrder("cmd-started", "cmd-exited", "restarting",
		"cmd-started", "done-seen", "stop-sent", "cmd-exited")
	if got := readLines(out); !slices.Equal(got[1:], []string{"15"}) {
		t.Fatalf("restarted CMD received %q, want only SIGTERM (15)", got[1:])
	}
}

// The done condition during the restart backoff ends tandem at once, with
// 0, without starting CMD again. (The test writes the done file as soon as
// the restart is announced; the first backoff is a whole second.)
func TestSidecarRestartDoneDuringBackoff(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--restart", "on-failure", "--poll-interval", "1h", "--done-file", done},
		helper("exit", "3"))...)
	if delay := p.waitEvent("restarting").Num("delay_ms"); delay != 1000 {
		t.Fatalf("first restart delay %dms, want 1000", delay)
	}
	scWriteFile(t, done, "")
	p.scWantExit(0, "stopped")
	p.waitEvent("done-seen")
	if n := len(p.scLinesWith("cmd-started")); n != 1 {
		t.Fatalf("CMD started %d times, want 1: the done condition must end the backoff", n)
	}
}

// --restart never (the default), and on-failure with a clean exit: CMD is
// not started again and tandem exits as CMD did.
func TestSidecarRestartNotWanted(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		restart []string
		code    int
	}{
		{"never, failure", []string{"--restart", "never"}, 3},
		{"default, failure", nil, 3},
		{"on-failure, success", []string{"--restart", "on-failure"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			done := inDir(tempDir(t), "done")
			args := append([]string{"sidecar", "--done-file", done}, tc.restart...)
			p := startTandem(t, procOptions{}, cmdArgs(args, helper("exit", strconv.Itoa(tc.code)))...)
			p.scWantExit(tc.code, "exited")
			if p.hasEvent("restarting") {
				t.Fatal("CMD was restarted")
			}
			if n := len(p.scLinesWith("cmd-started")); n != 1 {
				t.Fatalf("CMD started %d times, want 1", n)
			}
		})
	}
}

// An outside SIGTERM (pod deletion) during the backoff ends tandem at once,
// as a death by SIGTERM would: 143, CMD not started again. The reason is the
// one every signal gets that ends tandem while no CMD runs: interrupted.
func TestSidecarRestartSIGTERMDuringBackoff(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--restart", "always", "--done-file", done}, helper("exit", "0"))...)
	p.waitEvent("restarting")
	p.signal(syscall.SIGTERM)
	p.scWantExit(143, "interrupted")
	if n := len(p.scLinesWith("cmd-started")); n != 1 {
		t.Fatalf("CMD started %d times, want 1", n)
	}
}

// A pod deletion's SIGTERM forwarded to CMD ends the sidecar: CMD is not
// restarted after it (CMD dies of it: 143, a "failure"). Held by
// --outlive-main while the main still drains, a crash is restarted
// instead: the main still needs its sidecar.
func TestSidecarRestartNotAfterSIGTERM(t *testing.T) {
	t.Parallel()

	t.Run("forwarded", func(t *testing.T) {
		t.Parallel()
		done := inDir(tempDir(t), "done")
		p := startTandem(t, procOptions{}, cmdArgs(
			[]string{"sidecar", "--restart", "on-failure", "--done-file", done}, helper("sleep"))...)
		p.childPID()
		p.signal(syscall.SIGTERM)
		p.scWantExit(143, "signaled")
		if p.hasEvent("restarting") {
			t.Fatal("CMD restarted after the pod's SIGTERM")
		}
	})

	t.Run("held, then CMD crashes: restarted while the main drains", func(t *testing.T) {
		t.Parallel()
		dir := tempDir(t)
		done, out := inDir(dir, "done"), inDir(dir, "signals")
		main := holdLifeline(t, done)
		p := startTandem(t, procOptions{}, cmdArgs(
			[]string{"sidecar", "--restart", "on-failure", "--outlive-main", "1h", "--poll-interval", "1h", "--done-file", done},
			helper("record-signals", out, strconv.Itoa(int(syscall.SIGUSR1)), "3"))...)
		waitReadyPID(t, out)
		main.terminating()
		p.signal(syscall.SIGTERM)
		p.waitEvent(scHeldMessage)
		p.signal(syscall.SIGUSR1) // forwarded; CMD exits 3
		if restarting := p.waitEvent("restarting"); restarting.Num("exit_code") != 3 {
			t.Fatalf("restart line %v; want CMD's exit 3", restarting)
		}
		p.waitNth("cmd-started", 2)
		main.finish()
		p.scWantExit(0, "stopped")
	})
}

// The pod's deletion reaches the sidecar during a restart backoff, with
// --outlive-main and a main still draining: the signal is held as while
// CMD runs, CMD is started again after the backoff, and the main's end
// stops it (exit 0), rather than the sidecar leaving at once while the
// main still needs it.
func TestSidecarRestartHeldDuringBackoff(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	state, done, out := inDir(dir, "state"), inDir(dir, "done"), inDir(dir, "signals")
	main := holdLifeline(t, done)
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--restart", "on-failure", "--outlive-main", "1h", "--poll-interval", "1h", "--done-file", done},
		helper("sc-crash-once", state, out))...)
	if delay := p.waitEvent("restarting").Num("delay_ms"); delay != 1000 {
		t.Fatalf("first restart delay %dms, want 1000", delay)
	}
	main.terminating()
	p.signal(syscall.SIGTERM) // within the backoff's second
	p.waitEvent(scHeldMessage)
	waitReadyPID(t, out) // the second run is up, under the hold
	main.finish()
	p.scWantExit(0, "stopped")
	p.scWantOrder("cmd-exited", "restarting", scHeldMessage, "cmd-started", "done-seen", "stop-sent", "cmd-exited")
	if got := readLines(out); !slices.Equal(got[1:], []string{"15"}) {
		t.Fatalf("restarted CMD received %q, want only the stop's SIGTERM (15)", got[1:])
	}
}
