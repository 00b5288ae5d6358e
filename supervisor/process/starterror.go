package process

import (
	"errors"
	"io/fs"
	"os/exec"
	"strconv"

	"github.com/tandem-sh/tandem/internal/exitcode"
)

// StartError is a CMD that could not be started. It carries the shell's
// codes: 127 not found, 126 found but not runnable.
type StartError struct {
	Name     string
	NotFound bool
	Err      error
}

func (e *StartError) Error() string { return "start " + strconv.Quote(e.Name) + ": " + e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// ExitCode is 127 for a program not found, 126 for one that cannot run.
func (e *StartError) ExitCode() int {
	if e.NotFound {
		return exitcode.NotFound
	}
	return exitcode.CannotRun
}

func startError(name string, err error) error {
	notFound := errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
	return &StartError{Name: name, NotFound: notFound, Err: err}
}
