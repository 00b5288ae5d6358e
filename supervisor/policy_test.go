package supervisor

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

// Every row of signalTable, written out: what a signal of each kind means in
// each phase, and whether it says the pod is going away.
func TestSignalTable(t *testing.T) {
	// A sidecar whose own signals are not TERM, INT, HUP or QUIT, so every
	// kind has a signal of its own, and nothing is rewritten.
	cfg := testConfig(ModeSidecar)
	cfg.Sidecar.DoneSignal, cfg.Sidecar.TerminationSignal = unix.SIGUSR2, unix.SIGALRM
	e := newEngine(cfg, world{}, nil)
	rows := []struct {
		sig         unix.Signal
		phase       phase
		want        meaning
		terminating bool
	}{
		{unix.SIGUSR1, phaseIdle, sigIgnore, false},
		{unix.SIGUSR1, phaseRunning, sigForward, false},
		{unix.SIGUSR1, phaseHoldable, sigForward, false},
		{unix.SIGUSR1, phaseStopping, sigForward, false},

		{unix.SIGUSR2, phaseIdle, sigDone, false},
		{unix.SIGUSR2, phaseRunning, sigDone, false},
		{unix.SIGUSR2, phaseHoldable, sigDone, false},
		{unix.SIGUSR2, phaseStopping, sigDone, false},

		{unix.SIGALRM, phaseIdle, sigTerminate, true},
		{unix.SIGALRM, phaseRunning, sigForward, true},
		{unix.SIGALRM, phaseHoldable, sigHold, true},
		{unix.SIGALRM, phaseStopping, sigAbsorb, true},

		{unix.SIGTERM, phaseIdle, sigTerminate, true},
		{unix.SIGTERM, phaseRunning, sigForward, true},
		{unix.SIGTERM, phaseHoldable, sigForward, true},
		{unix.SIGTERM, phaseStopping, sigForward, true},
		{unix.SIGINT, phaseIdle, sigTerminate, true},
		{unix.SIGINT, phaseRunning, sigForward, true},
		{unix.SIGINT, phaseHoldable, sigForward, true},
		{unix.SIGINT, phaseStopping, sigForward, true},

		{unix.SIGHUP, phaseIdle, sigTerminate, false},
		{unix.SIGHUP, phaseRunning, sigForward, false},
		{unix.SIGHUP, phaseHoldable, sigForward, false},
		{unix.SIGHUP, phaseStopping, sigForward, false},
		{unix.SIGQUIT, phaseIdle, sigTerminate, false},
		{unix.SIGQUIT, phaseRunning, sigForward, false},
		{unix.SIGQUIT, phaseHoldable, sigForward, false},
		{unix.SIGQUIT, phaseStopping, sigForward, false},

		{unix.SIGUSR1, phaseIdleHoldable, sigIgnore, false},
		{unix.SIGUSR2, phaseIdleHoldable, sigDone, false},
		{unix.SIGALRM, phaseIdleHoldable, sigHold, true},
		{unix.SIGTERM, phaseIdleHoldable, sigTerminate, true},
		{unix.SIGINT, phaseIdleHoldable, sigTerminate, true},
		{unix.SIGHUP, phaseIdleHoldable, sigTerminate, false},
		{unix.SIGQUIT, phaseIdleHoldable, sigTerminate, false},
		// After the requested stop, --await-termination: any signal but
		// the done signal ends the wait.
		{unix.SIGUSR1, phaseAwaiting, sigRelease, false},
		{unix.SIGUSR2, phaseAwaiting, sigIgnore, false},
		{unix.SIGALRM, phaseAwaiting, sigRelease, true},
		{unix.SIGTERM, phaseAwaiting, sigRelease, true},
		{unix.SIGINT, phaseAwaiting, sigRelease, true},
		{unix.SIGHUP, phaseAwaiting, sigRelease, false},
		{unix.SIGQUIT, phaseAwaiting, sigRelease, false},
	}
	if len(rows) != int(kindCount)*int(phaseCount)+int(phaseCount)*2 {
		t.Fatalf("%d rows: a kind or phase is missing from this test", len(rows))
	}
	for _, row := range rows {
		m, terminating := e.policy.meaning(row.sig, row.phase)
		if m != row.want || terminating != row.terminating {
			t.Errorf("%s in phase %d: %d, terminating %v; want %d, %v",
				signals.Name(row.sig), row.phase, m, terminating, row.want, row.terminating)
		}
	}
}

// --rewrite SIG:0 turns a forward and a hold into a drop (an ignore while
// no CMD runs), neither taken for the pod's end; the done signal, an absorb
// and a signal ending tandem while no CMD runs are as they were.
func TestSignalTableRewriteToDrop(t *testing.T) {
	cfg := testConfig(ModeSidecar)
	cfg.Sidecar.DoneSignal, cfg.Sidecar.TerminationSignal = unix.SIGUSR2, unix.SIGALRM
	cfg.Rewrite = map[unix.Signal]unix.Signal{unix.SIGUSR1: signals.Drop, unix.SIGUSR2: signals.Drop,
		unix.SIGALRM: signals.Drop, unix.SIGTERM: signals.Drop, unix.SIGHUP: unix.SIGTERM}
	e := newEngine(cfg, world{}, nil)
	rows := []struct {
		sig   unix.Signal
		phase phase
		want  meaning
	}{
		{unix.SIGUSR1, phaseRunning, sigDrop},
		{unix.SIGUSR1, phaseIdle, sigIgnore},
		{unix.SIGUSR2, phaseRunning, sigDone},
		{unix.SIGALRM, phaseRunning, sigDrop},
		{unix.SIGALRM, phaseHoldable, sigDrop},
		{unix.SIGALRM, phaseIdleHoldable, sigIgnore},
		{unix.SIGALRM, phaseStopping, sigAbsorb},
		{unix.SIGTERM, phaseStopping, sigDrop},
		{unix.SIGTERM, phaseIdle, sigTerminate},
		{unix.SIGTERM, phaseAwaiting, sigRelease}, // no CMD left to spare it
		{unix.SIGALRM, phaseAwaiting, sigRelease},
		{unix.SIGHUP, phaseRunning, sigForward}, // rewritten to another signal: still forwarded
	}
	for _, row := range rows {
		m, terminating := e.policy.meaning(row.sig, row.phase)
		if m != row.want {
			t.Errorf("%s in phase %d: %d, want %d", signals.Name(row.sig), row.phase, m, row.want)
		}
		if terminating && (m == sigDrop || m == sigIgnore) {
			t.Errorf("%s in phase %d: dropped, yet taken for the pod's end", signals.Name(row.sig), row.phase)
		}
	}
}

// The sidecar's own signals are sorted before TERM, INT, HUP and QUIT, and
// only in sidecar mode.
func TestKindOf(t *testing.T) {
	sidecar := testConfig(ModeSidecar)
	sidecar.Sidecar.DoneSignal, sidecar.Sidecar.TerminationSignal = unix.SIGINT, unix.SIGQUIT
	main := testConfig(ModeMain)
	rows := []struct {
		cfg  Config
		sig  unix.Signal
		want kind
	}{
		{sidecar, unix.SIGINT, kindDone},
		{sidecar, unix.SIGQUIT, kindTermination},
		{sidecar, unix.SIGTERM, kindStop},
		{sidecar, unix.SIGHUP, kindReload},
		{sidecar, unix.SIGUSR2, kindOther},
		{main, unix.SIGUSR2, kindOther}, // a main's done signal is sent, not received
		{main, unix.SIGINT, kindStop},
		{main, unix.SIGQUIT, kindReload},
	}
	for _, row := range rows {
		if got := newEngine(row.cfg, world{}, nil).policy.kindOf(row.sig); got != row.want {
			t.Errorf("%s mode, %s: kind %d, want %d", row.cfg.Mode, signals.Name(row.sig), got, row.want)
		}
	}
}

// The phase of a run: a requested stop under way, else holdable while
// --outlive-main can still hold the termination signal; with no CMD
// running (a restart backoff), idle, or idle holdable likewise.
func TestRunPhase(t *testing.T) {
	outlive := testConfig(ModeSidecar)
	outlive.Sidecar.OutliveMain = time.Minute
	rows := []struct {
		name       string
		cfg        Config
		hold       holdState
		run        cmdRun
		want, idle phase
	}{
		{"run mode", testConfig(ModeRun), holdNone, cmdRun{}, phaseRunning, phaseIdle},
		{"sidecar without --outlive-main", testConfig(ModeSidecar), holdNone, cmdRun{}, phaseRunning, phaseIdle},
		{"--outlive-main", outlive, holdNone, cmdRun{}, phaseHoldable, phaseIdleHoldable},
		{"--outlive-main, held", outlive, holdConfirmed, cmdRun{}, phaseRunning, phaseIdle},
		{"--outlive-main, looking for a mark", outlive, holdProvisional, cmdRun{}, phaseRunning, phaseIdle},
		{"--outlive-main, released", outlive, holdReleased, cmdRun{}, phaseRunning, phaseIdle},
		{"--outlive-main, stop after a failure", outlive, holdNone, cmdRun{stop: stopSequence{phase: stopSignaled}}, phaseRunning, phaseIdleHoldable},
		{"requested stop", outlive, holdNone, cmdRun{stop: stopSequence{requested: true, phase: stopDelaying}}, phaseStopping, phaseIdleHoldable},
		{"requested stop, held", outlive, holdConfirmed, cmdRun{stop: stopSequence{requested: true, phase: stopQuitting}}, phaseStopping, phaseIdle},
	}
	for _, row := range rows {
		e := newEngine(row.cfg, world{}, nil)
		e.deletion.state = row.hold
		if got := runPhase(&row.run, e.deletion); got != row.want {
			t.Errorf("%s: phase %d, want %d", row.name, got, row.want)
		}
		if got := idlePhase(e.deletion); got != row.idle {
			t.Errorf("%s, no CMD running: phase %d, want %d", row.name, got, row.idle)
		}
	}
}
