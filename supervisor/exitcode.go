package supervisor

import (
	"slices"

	"golang.org/x/sys/unix"
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
		return exitSignalBase + int(s.Signal)
	}
	return s.Code
}

// Reason is the done file's word for this status.
func (s Status) Reason() string {
	if s.Signal != 0 {
		return ReasonSignaled
	}
	return ReasonExited
}

// SignalName is the signal's name for the done file, or "".
func (s Status) SignalName() string {
	if s.Signal == 0 {
		return ""
	}
	return SignalName(s.Signal)
}

// reportedCode applies --success-code: a listed code is reported as 0.
func reportedCode(code int, successCodes []int) int {
	if slices.Contains(successCodes, code) {
		return 0
	}
	return code
}
