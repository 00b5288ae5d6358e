package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

// What a signal means to tandem is one table (signalTable), which both
// loops consult: supervise while CMD runs, idle while none runs. A signal is
// first sorted into its kind (kindOf), the loop says where tandem is
// (phase), and the table gives the meaning.

// meaning is what a received signal makes tandem do.
type meaning int

const (
	sigForward   meaning = iota // pass it on to CMD's group (after --rewrite)
	sigDone                     // sidecar: the done signal: stop CMD, the main is done
	sigHold                     // sidecar: the termination signal held under --outlive-main
	sigAbsorb                   // sidecar: the termination signal during a requested stop
	sigDrop                     // --rewrite SIG:0: not forwarded
	sigTerminate                // no CMD runs: tandem ends, 128+N
	sigIgnore                   // no CMD runs: nobody to forward it to
	sigRelease                  // sidecar: the stop awaited after a requested one: tandem exits 0
)

// phase is where tandem is, as far as signals go.
type phase int

const (
	phaseIdle         phase = iota // no CMD runs: main's --wait-for, a restart backoff, the announcement
	phaseRunning                   // CMD runs (a stop tandem began on its own failure included)
	phaseHoldable                  // CMD runs, --outlive-main is set, no stop begun, nothing held yet
	phaseStopping                  // the requested stop (the main is done) is under way
	phaseIdleHoldable              // no CMD runs (a restart backoff), --outlive-main can hold the termination signal
	phaseAwaiting                  // the requested stop is over; --await-termination waits for the container's stop
	phaseCount
)

// kind sorts signals by what they can mean.
type kind int

const (
	kindOther       kind = iota
	kindDone             // sidecar: --done-signal
	kindTermination      // sidecar: --termination-signal (the pod's stop)
	kindStop             // SIGTERM, SIGINT: a person or a runtime stopping the container
	kindReload           // SIGHUP, SIGQUIT: stop requests too, but also reload and dump requests
	kindCount
)

// signalTable is what a signal of each kind means in each phase.
// terminating: the pod is going away (see ending.terminating): the
// termination signal, SIGTERM or SIGINT, not HUP or QUIT, after which a
// crash still deserves a restart. The pod's stop during a requested stop is
// absorbed: forwarding it could switch CMD to a harsher exit (pgbouncer's
// fast exit on TERM during its safe INT shutdown). Once that stop is over,
// any signal but the done signal ends the wait of --await-termination with
// the stop's 0, --rewrite or not: there is no CMD left to spare it, and the
// container's stop signal may be one tandem was not told of (an image's
// STOPSIGNAL not looked up).
var signalTable = [kindCount]struct {
	in          [phaseCount]meaning // indexed by phase: idle, running, holdable, stopping, idle holdable, awaiting
	terminating bool
}{
	kindOther:       {[phaseCount]meaning{sigIgnore, sigForward, sigForward, sigForward, sigIgnore, sigRelease}, false},
	kindDone:        {[phaseCount]meaning{sigDone, sigDone, sigDone, sigDone, sigDone, sigIgnore}, false},
	kindTermination: {[phaseCount]meaning{sigTerminate, sigForward, sigHold, sigAbsorb, sigHold, sigRelease}, true},
	kindStop:        {[phaseCount]meaning{sigTerminate, sigForward, sigForward, sigForward, sigTerminate, sigRelease}, true},
	kindReload:      {[phaseCount]meaning{sigTerminate, sigForward, sigForward, sigForward, sigTerminate, sigRelease}, false},
}

// signalPolicy is what a signal means to this tandem: signalTable, read
// with the sidecar's own signals and --rewrite.
type signalPolicy struct {
	// --done-signal, --termination-signal: 0 outside sidecar mode, never
	// received.
	doneSignal, terminationSignal unix.Signal
	rewrite                       map[unix.Signal]unix.Signal
}

func newSignalPolicy(cfg Config) signalPolicy {
	p := signalPolicy{rewrite: cfg.Rewrite}
	if cfg.Mode == ModeSidecar {
		p.doneSignal, p.terminationSignal = cfg.Sidecar.DoneSignal, cfg.Sidecar.TerminationSignal
	}
	return p
}

// meaning is what sig means in phase ph: the table's word, where a
// --rewrite to 0 turns a forward into a drop. A signal dropped so is never
// passed on, so it is no hold either (nothing would be forwarded at its
// end) and does not say the pod is going away: a wrapper that signals its
// program at will (Argo's executor at the main's end) is ignored while the
// done files decide.
func (p signalPolicy) meaning(sig unix.Signal, ph phase) (m meaning, terminating bool) {
	row := signalTable[p.kindOf(sig)]
	m = row.in[ph]
	if to, ok := p.rewrite[sig]; ok && to == signals.Drop {
		switch {
		case m == sigForward || m == sigHold && ph == phaseHoldable:
			return sigDrop, false
		case m == sigHold:
			return sigIgnore, false
		}
	}
	return m, row.terminating
}

// kindOf sorts sig; the sidecar's own signals come first (--done-signal may
// be SIGINT, --termination-signal SIGQUIT).
func (p signalPolicy) kindOf(sig unix.Signal) kind {
	switch sig {
	case p.doneSignal:
		return kindDone
	case p.terminationSignal:
		return kindTermination
	}
	switch {
	case sig == unix.SIGTERM || sig == unix.SIGINT:
		return kindStop
	case sig == unix.SIGHUP || sig == unix.SIGQUIT:
		return kindReload
	}
	return kindOther
}

// idlePhase is the phase while no CMD runs.
func idlePhase(d *deletion) phase {
	if d.open() {
		return phaseIdleHoldable
	}
	return phaseIdle
}

// runPhase is the phase of a run of CMD.
func runPhase(r *cmdRun, d *deletion) phase {
	switch {
	case r.stop.stopping():
		return phaseStopping
	case !r.stop.active() && d.open():
		return phaseHoldable
	}
	return phaseRunning
}
