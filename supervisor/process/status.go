package process

import (
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/internal/signals"
)

// Status is how a process ended: an exit code, or the signal that killed it.
type Status struct {
	Code   int
	Signal unix.Signal // 0 when the process exited on its own
}

func statusFromWait(ws unix.WaitStatus) Status {
	if ws.Signaled() {
		return Status{Signal: ws.Signal()}
	}
	return Status{Code: ws.ExitStatus()}
}

// ExitCode is the shell's convention, which Kubernetes records too: the code,
// or 128+N for a death by signal N.
func (s Status) ExitCode() int {
	if s.Signal != 0 {
		return exitcode.Signaled(s.Signal)
	}
	return s.Code
}

// SignalName is the name of the signal that killed the process, or "".
func (s Status) SignalName() string {
	if s.Signal == 0 {
		return ""
	}
	return signals.Name(s.Signal)
}
