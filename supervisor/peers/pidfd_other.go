//go:build !linux

package peers

import (
	"errors"

	"golang.org/x/sys/unix"
)

// SignalPeer always fails off Linux.
func (f *ProcFinder) SignalPeer(Peer, unix.Signal) error {
	return errors.New("tandem signals peers on Linux only")
}
