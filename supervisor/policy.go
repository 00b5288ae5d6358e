package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/signals"
)

// action is what a signal means while CMD runs.
type action int

const (
	actForward action = iota // pass it on to CMD's group (after --rewrite)
	actDone                  // sidecar: the done signal
	actHold                  // sidecar: the termination signal under --outlive-main
	actAbsorb                // sidecar: the termination signal during a requested stop
	actDrop                  // --rewrite SIG:0
)

// policy is the one place that says what each signal means while CMD runs.
func (e *engine) policy(sig unix.Signal, r *cmdRun) action {
	if e.cfg.Mode == ModeSidecar {
		sc := e.cfg.Sidecar
		switch {
		case sig == sc.DoneSignal:
			return actDone
		case sig == sc.TerminationSignal && r.stop.active() && r.requested:
			// The pod's stop is the stop tandem already began: forwarding it
			// could switch CMD to a harsher exit (pgbouncer's fast exit on
			// TERM during its safe INT shutdown).
			return actAbsorb
		case sig == sc.TerminationSignal && sc.OutliveMain > 0 && !r.held && !r.stop.active():
			return actHold
		}
	}
	if to, ok := e.cfg.Rewrite[sig]; ok && to == signals.Drop {
		return actDrop
	}
	return actForward
}

// idleAction is what a signal means while no CMD runs: there is nobody to
// forward it to.
type idleAction int

const (
	idleIgnore    idleAction = iota
	idleDone                 // sidecar: the done signal
	idleTerminate            // ends tandem: 128+N
)

func (e *engine) idlePolicy(sig unix.Signal) idleAction {
	switch {
	case e.cfg.Mode == ModeSidecar && sig == e.cfg.Sidecar.DoneSignal:
		return idleDone
	case e.endsTandem(sig):
		return idleTerminate
	}
	return idleIgnore
}

// endsTandem: the signals that would end CMD by default and that a person
// or a runtime sends to stop a container.
func (e *engine) endsTandem(sig unix.Signal) bool {
	switch sig {
	case unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT:
		return true
	}
	return e.cfg.Mode == ModeSidecar && sig == e.cfg.Sidecar.TerminationSignal
}

// isTerminating: the pod is going away (see ending.terminating).
func (e *engine) isTerminating(sig unix.Signal) bool {
	if e.cfg.Mode == ModeSidecar && sig == e.cfg.Sidecar.DoneSignal {
		return false
	}
	return sig == unix.SIGTERM || sig == unix.SIGINT ||
		(e.cfg.Mode == ModeSidecar && sig == e.cfg.Sidecar.TerminationSignal)
}
