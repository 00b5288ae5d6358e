package process

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalIsOurs: tandem takes the terminal's foreground for CMD only when
// it holds it itself; a tandem started in the background must not steal the
// terminal from a shell.
var terminalIsOurs = foregroundIsOurs()

func foregroundIsOurs() bool {
	pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// JobControl reports whether tandem takes part in a shell's job control: it
// was started in the foreground of a terminal, and is not a container's
// PID 1 (where no shell waits for it).
func JobControl() bool { return terminalIsOurs && os.Getpid() != 1 }

// TakeTerminal makes tandem's own group the terminal's foreground again (CMD
// was stopped by Ctrl-Z), so the shell finds it where it left it.
func TakeTerminal() error { return setForeground(unix.Getpgrp()) }

// GiveTerminal hands the terminal to CMD's group, when tandem holds it (after
// `fg`; after `bg` it does not, and CMD stays in the background).
func GiveTerminal(pgid int) error {
	if !foregroundIsOurs() {
		return nil
	}
	return setForeground(pgid)
}

// StopSelf stops tandem as CMD was stopped, so the shell reports the job as
// stopped and `fg` continues it (with SIGCONT, which tandem passes on).
func StopSelf() error { return unix.Kill(os.Getpid(), unix.SIGSTOP) }

// setForeground is tcsetpgrp from the locked thread with SIGTTOU blocked: a
// process outside the foreground group that calls it with SIGTTOU caught
// (tandem catches every signal to forward it) would be sent SIGTTOU instead.
func setForeground(pgid int) error {
	var err error
	StartReaper().onThread(func() {
		var block, old unix.Sigset_t
		block.Val[(unix.SIGTTOU-1)/64] |= 1 << ((uint(unix.SIGTTOU) - 1) % 64)
		if err = unix.PthreadSigmask(unix.SIG_BLOCK, &block, &old); err != nil {
			return
		}
		defer func() { _ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil) }() // the mask it read back: cannot be refused
		err = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pgid)
	})
	return err
}
