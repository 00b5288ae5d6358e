package supervisor

import (
	"errors"
	"fmt"
)

// Exit codes that tandem itself produces (SPEC, "Exit codes").
const (
	ExitTimeout     = 1
	ExitUsage       = 2
	ExitInternal    = 125
	ExitCannotExec  = 126
	ExitNotFound    = 127
	exitSignalBase  = 128
	maxExitCode     = 255
	exitCodeUnknown = -1
)

// CodedError is an error that carries the exit code tandem must end with.
type CodedError struct {
	Code int
	Err  error
}

func (e *CodedError) Error() string { return e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

// UsageError marks a bad flag, value or condition: exit 2, nothing started.
func UsageError(format string, args ...any) error {
	return &CodedError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// ExitCodeOf maps an error to the exit code tandem ends with: the code it
// carries, else 125 (tandem itself failed).
func ExitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	var coded *CodedError
	if errors.As(err, &coded) {
		return coded.Code
	}
	return ExitInternal
}
