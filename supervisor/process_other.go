//go:build !linux

package supervisor

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// tandem is a Linux container init (subreaper, parent-death signal, /proc).
// Elsewhere the package builds and vets, and every start fails clearly.
var errNotLinux = errors.New("tandem supervises processes on Linux only")

// Reaper is a stub off Linux.
type Reaper struct{}

// StartReaper is a stub off Linux.
func StartReaper() *Reaper { return &Reaper{} }

// Reaped is never signalled off Linux.
func (r *Reaper) Reaped() <-chan struct{} { return nil }

// Spawn always fails off Linux.
func (r *Reaper) Spawn(string, []string, *syscall.ProcAttr) (int, <-chan Status, error) {
	return 0, nil, errNotLinux
}

// AnnounceListening always fails off Linux.
func (r *Reaper) AnnounceListening() error { return errNotLinux }

// BecomeSubreaper always fails off Linux.
func BecomeSubreaper() error { return errNotLinux }

func startProcess(*Reaper, []string, spawnOptions) (*child, error) {
	return nil, &CodedError{Code: ExitInternal, Err: errNotLinux}
}

// ExecUnblocked always fails off Linux.
func ExecUnblocked(string, []string) int { return ExitInternal }

func signalProcess(int, unix.Signal, bool) error { return errNotLinux }

func groupAlive(int) bool { return false }

// SignalPeer always fails off Linux.
func (f *procPeerFinder) SignalPeer(Peer, unix.Signal) error { return errNotLinux }

var fsnotifyMissing = unix.ENOENT
