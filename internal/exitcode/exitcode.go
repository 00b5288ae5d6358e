// Package exitcode is the one place that says which code tandem ends with:
// the codes tandem itself produces, the shell's 128+N, and the error that
// carries a code up to main. The engine (supervisor), process (its
// trampoline and start errors) and the CLI all use it; it imports nothing of
// theirs, so none of them has to import another to agree on a number.
package exitcode

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Codes tandem itself produces; CMD's own code and 128+N pass through as
// they are.
const (
	Timeout   = 1   // --wait-timeout, `tandem wait --timeout`, peers not found
	Usage     = 2   // a bad flag, value or condition: nothing started
	Internal  = 125 // tandem itself failed
	CannotRun = 126 // CMD found but not runnable, as a shell says
	NotFound  = 127 // CMD not found, as a shell says
	Max       = 255 // the highest code a process can end with
)

// SidecarLost is main --needs' code when a needed sidecar was lost and CMD's
// own code was 0: an interrupted main never counts as a success.
const SidecarLost = 1

// RestartLimit is a sidecar's code when it gave up on CMD (--max-restarts)
// and CMD's last code was 0: a sidecar given up on never counts as a
// success.
const RestartLimit = 1

// signalBase is the shell's 128+N for a death by signal N.
const signalBase = 128

// Signaled is the shell's code for a death by sig, which Kubernetes
// records too: 128+N.
func Signaled(sig unix.Signal) int { return signalBase + int(sig) }

// Error ends tandem with Code. Logged says whether tandem's log already
// explains it (the "exiting" line), so main prints nothing more.
type Error struct {
	Code   int
	Logged bool
	Err    error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the code this error ends tandem with.
func (e *Error) ExitCode() int { return e.Code }

// Usagef is a bad flag, value or condition: exit 2, nothing started.
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// coder is any error that knows its exit code (*Error, and
// process.StartError with 126 or 127).
type coder interface{ ExitCode() int }

// Of maps an error to the code tandem ends with: 0 for none, the one it
// carries, else 125 (tandem itself failed).
func Of(err error) int {
	if err == nil {
		return 0
	}
	var coded coder
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return Internal
}

// Logged reports whether tandem already logged why it ends.
func Logged(err error) bool {
	var exit *Error
	return errors.As(err, &exit) && exit.Logged
}
