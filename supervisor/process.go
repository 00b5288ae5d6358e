package supervisor

import (
	"time"

	"golang.org/x/sys/unix"
)

// child is one running process that tandem started: CMD or an exec: probe.
type child struct {
	pid     int
	exited  <-chan Status // receives the status once the reaper collected it
	started time.Time
}

// spawnOptions are the knobs that differ between CMD and exec: probes.
type spawnOptions struct {
	deathSignal unix.Signal // sent to the child if tandem's thread dies
	foreground  bool        // take the terminal when tandem holds it
	files       []uintptr   // stdin, stdout, stderr; tandem's own when nil
}

// TrampolineArg is the hidden first argument with which tandem re-executes
// itself to clear an inherited signal mask before exec'ing CMD.
const TrampolineArg = "__tandem-exec-unblocked"

const killSignal = unix.SIGKILL

// listeningThreadName names one of tandem's threads once its signal handlers
// are registered. A peer is visible in /proc from its exec, but until then a
// done signal would kill it (default action) or be dropped by the Go
// runtime; `--signal-peers` waits for this name instead (peers.go).
const listeningThreadName = "tandem-ready"
