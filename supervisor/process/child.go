// Package process is tandem's process layer: it starts CMD and exec: probes
// from one locked OS thread, reaps every child with the one wait4(-1) loop of
// the process, signals process groups, and hands the terminal back and forth
// for job control.
package process

import (
	"time"

	"golang.org/x/sys/unix"
)

// Child is one running process that tandem started: CMD or an exec: probe.
type Child struct {
	Pid     int
	Exited  <-chan Status      // receives the status once the reaper collected it
	Stopped <-chan unix.Signal // with Options.ReportStops: the signal that stopped it (job control)
	Started time.Time
}

// Options are the knobs that differ between CMD and exec: probes.
type Options struct {
	DeathSignal unix.Signal // sent to the child if tandem's thread dies; SIGKILL when 0
	Foreground  bool        // take the terminal when tandem holds it
	Files       []uintptr   // stdin, stdout, stderr; tandem's own when nil
	ReportStops bool        // send job-control stops on Child.Stopped
}

// TrampolineArg is the hidden first argument with which tandem re-executes
// itself to clear an inherited signal mask before exec'ing CMD.
const TrampolineArg = "__tandem-exec-unblocked"
