package supervisor

import (
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
)

// onJobStop: CMD was stopped by Ctrl-Z (or SIGTTIN/SIGTTOU). Under a shell,
// tandem takes the terminal back and stops itself the same way, so the shell
// shows the job as stopped and gets its prompt back; `fg` then continues
// tandem, which hands the terminal back to CMD (onJobContinue). As a
// container's PID 1 nobody waits for tandem's stop: nothing changes.
func onJobStop(t terminal, log zerolog.Logger, r *cmdRun, sig unix.Signal) {
	if !isJobControlStop(sig) || !t.JobControl() {
		return
	}
	event(log.Info(), cmdline.EventCmdStopped).Int("pid", r.child.Pid).Str("signal", signals.Name(sig)).
		Msg("CMD stopped by job control; stopping tandem too")
	if err := t.Take(); err != nil {
		event(log.Warn(), cmdline.EventJobControlFailed).Err(err).Msg("cannot take the terminal back")
	}
	r.jobStopped = true
	if err := t.StopSelf(); err != nil {
		event(log.Warn(), cmdline.EventJobControlFailed).Err(err).Msg("cannot stop tandem")
	}
}

// onJobContinue runs when SIGCONT reaches a tandem whose CMD is stopped: the
// terminal goes back to CMD's group before SIGCONT is passed on.
func onJobContinue(t terminal, log zerolog.Logger, r *cmdRun) {
	r.jobStopped = false
	if err := t.Give(r.child.Pid); err != nil {
		event(log.Warn(), cmdline.EventJobControlFailed).Err(err).Msg("cannot hand the terminal back to CMD")
	}
	event(log.Info(), cmdline.EventCmdContinued).Int("pid", r.child.Pid).Msg("continuing CMD")
}

func isJobControlStop(sig unix.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}
