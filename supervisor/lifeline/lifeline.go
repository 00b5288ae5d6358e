package lifeline

import (
	"errors"
	"fmt"
	"io/fs"
)

// Suffix names a done file's lifeline: DONEFILE.lifeline, in the same
// directory, so it lives on the same volume.
const Suffix = ".lifeline"

// Of is the lifeline of a done file.
func Of(doneFile string) string { return doneFile + Suffix }

// ErrAbsent: nothing is at the lifeline's path (no holder has started, or
// the writer is not tandem: a script's `tandem done`, a bare touch).
var ErrAbsent = errors.New("no lifeline")

// ErrReleased: the lifeline is there, and nothing holds it any more.
var ErrReleased = errors.New("lifeline released")

// UnusableError says why a lifeline cannot be used (a directory or a
// regular file at its path, no permission, a filesystem without FIFOs); a
// sidecar then relies on the done file alone.
type UnusableError struct {
	Path string
	Err  error
}

func (e *UnusableError) Error() string {
	return fmt.Sprintf("lifeline %s cannot be used: %v", e.Path, e.Err)
}

func (e *UnusableError) Unwrap() error { return e.Err }

func notFIFO(path string, mode fs.FileMode) error {
	return &UnusableError{Path: path, Err: fmt.Errorf("it is a %s, not a FIFO (left by something else?)", describe(mode))}
}

func describe(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "directory"
	case mode.IsRegular():
		return "regular file"
	case mode&fs.ModeSymlink != 0:
		return "symbolic link"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeDevice != 0:
		return "device"
	}
	return mode.Type().String()
}
