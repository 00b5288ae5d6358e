package supervisor

import (
	"errors"
	"fmt"
)

// Exit codes that tandem itself produces; CMD's own code and 128+N pass
// through as they are.
const (
	ExitTimeout    = 1
	ExitUsage      = 2
	ExitInternal   = 125
	signalExitBase = 128
	maxExitCode    = 255
)

// ExitError ends tandem with Code. Logged says whether tandem's log already
// explains it (the "exiting" line), so main prints nothing more.
type ExitError struct {
	Code   int
	Logged bool
	Err    error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the code this error ends tandem with.
func (e *ExitError) ExitCode() int { return e.Code }

// UsageError is a bad flag, value or condition: exit 2, nothing started.
func UsageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// exitCoder is any error that knows its exit code (*ExitError, and
// process.StartError with 126 or 127).
type exitCoder interface{ ExitCode() int }

// ExitCode maps an error to the code tandem ends with: the one it carries,
// else 125 (tandem itself failed).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var coded exitCoder
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return ExitInternal
}

// Logged reports whether tandem already logged why it ends.
func Logged(err error) bool {
	var exit *ExitError
	return errors.As(err, &exit) && exit.Logged
}
