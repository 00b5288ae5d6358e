package supervisor

import (
	"slices"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// outcome is how tandem ends: its exit code and the reason it gives (in the
// "exiting" line, the main's done file and the termination log). Every
// outcome is built by one of the constructors below, so how an exit code is
// decided reads in this file (and internal/exitcode for the numbers).
type outcome struct {
	code   int
	reason string
	signal string
	err    error
}

// failed: tandem itself failed (a file it must write, a done source it
// cannot build): the code the error carries, else 125.
func failed(err error) outcome {
	return outcome{code: exitcode.Of(err), reason: statusfile.ReasonError, err: err}
}

// startFailed: CMD could not be started: 127 not found, 126 not runnable.
func startFailed(err error) outcome {
	return outcome{code: exitcode.Of(err), reason: statusfile.ReasonStartFailed, err: err}
}

// waitTimedOut: main's --wait-for did not hold in time: exit 1.
func waitTimedOut(err error) outcome {
	return outcome{code: exitcode.Timeout, reason: statusfile.ReasonWaitTimeout,
		err: &exitcode.Error{Code: exitcode.Timeout, Err: err}}
}

// interrupted is how tandem ends when a signal ends it while no CMD runs
// (main's wait, a sidecar's restart backoff): 128+N, as a shell would.
func interrupted(sig unix.Signal) outcome {
	return outcome{code: exitcode.Signaled(sig), reason: statusfile.ReasonInterrupted, signal: signals.Name(sig)}
}

// stopped: a requested stop (the main was done) is a success, however CMD
// took it.
func stopped() outcome { return outcome{code: 0, reason: statusfile.ReasonStopped} }

// cmdEnded: CMD's own end passes through, its code or 128+N, with
// --success-code applied.
func cmdEnded(st process.Status, successCodes []int) outcome {
	return outcome{code: reportedCode(st.ExitCode(), successCodes), reason: reasonOf(st), signal: st.SignalName()}
}

// restartLimited: a sidecar gave up on a CMD that exited too often: CMD's
// last code, or 128+N, or 1 when that is 0 (--restart always restarts
// clean exits too): a sidecar given up on never counts as a success. err
// says why, for the last line and the termination log.
func restartLimited(st process.Status, successCodes []int, err error) outcome {
	out := cmdEnded(st, successCodes)
	if out.code == 0 {
		out.code = exitcode.RestartLimit
	}
	out.reason, out.err = statusfile.ReasonRestartLimit, err
	return out
}

// sidecarLost: main --needs, a needed sidecar was lost: CMD's outcome (the
// zero one when CMD never started) with its code, or 1 when that is 0: an
// interrupted main never counts as a success. The error names the sidecar
// and its ready file, for the last line and the termination log.
func sidecarLost(loss sidecarLoss, cmd outcome) outcome {
	code := cmd.code
	if code == 0 {
		code = exitcode.SidecarLost
	}
	return outcome{code: code, reason: statusfile.ReasonSidecarLost, signal: cmd.signal, err: loss}
}

// endingOutcome turns how one run of CMD ended into tandem's outcome, with
// --success-code applied.
func endingOutcome(log zerolog.Logger, end ending, successCodes []int) outcome {
	switch {
	case end.err != nil:
		return failed(end.err)
	case end.lost != nil:
		return sidecarLost(*end.lost, cmdEnded(end.status, successCodes))
	case end.requested:
		if end.status.Signal == unix.SIGKILL {
			event(log.Warn(), cmdline.EventStopForced).Msg("CMD had to be killed after grace; the stop was requested, so the exit code is 0")
		}
		return stopped()
	}
	return cmdEnded(end.status, successCodes)
}

// reasonOf is the done file's word for how CMD ended.
func reasonOf(st process.Status) string {
	if st.Signal != 0 {
		return statusfile.ReasonSignaled
	}
	return statusfile.ReasonExited
}

// reportedCode applies --success-code: a listed code is reported as 0.
func reportedCode(code int, successCodes []int) int {
	if slices.Contains(successCodes, code) {
		return 0
	}
	return code
}

// asError is Run's result for an outcome: nil for 0, else an error carrying
// the code, already logged by the "exiting" line.
func (o outcome) asError() error {
	if o.code == 0 {
		return nil
	}
	return &exitcode.Error{Code: o.code, Logged: true, Err: o.err}
}
