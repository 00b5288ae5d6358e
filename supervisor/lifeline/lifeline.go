package lifeline

import (
	"errors"
	"fmt"
	"hash/fnv"
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

// ErrForeign: the lifeline's holder is in another pod (a volume shared
// between pods by mistake, or podman's named volumes): not this sidecar's
// main.
var ErrForeign = errors.New("lifeline held in another pod")

// Kind is what the holder will write, stamped on its FIFO with the host
// (stamp): a main's done file, or a sidecar's stopped file. A stopped
// file's holder lost is a sidecar gone, which counts as stopped whatever
// the watcher's --stop-when.
type Kind int64

const (
	KindDone    Kind = 0
	KindStopped Kind = 1
)

// stamp is the sub-second part of the FIFO's modification time: the host's
// tag in whole microseconds, and the kind in the nanoseconds. A filesystem
// that keeps only microseconds loses the kind, which then reads as
// KindDone, as before there were kinds.
func stamp(host string, kind Kind) int64 { return hostTag(host) + int64(kind) }

// unstamp reads a stamp: ok is false when the FIFO has none that tandem
// wrote (no sub-second part, or nanoseconds no kind has).
func unstamp(nsec int64) (tag int64, kind Kind, ok bool) {
	kind = Kind(nsec % 1000)
	if nsec < 1000 || kind > KindStopped {
		return 0, KindDone, false
	}
	return nsec - int64(kind), kind, true
}

// hostTag is what a holder stamps on its FIFO so that a watcher can tell a
// lifeline of its own pod (whose containers share the hostname) from another
// pod's: the sub-second part of the FIFO's modification time, which nothing
// changes afterwards (nobody writes into a lifeline). Microseconds, never 0,
// so that a filesystem keeping only microseconds keeps it too, and one
// keeping whole seconds (0) says "cannot tell".
func hostTag(host string) int64 {
	h := fnv.New32a()
	h.Write([]byte(host))
	return int64(h.Sum32()%999_999+1) * 1000
}

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
