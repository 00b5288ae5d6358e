//go:build !linux

package peers

import "errors"

// WatchMain always fails off Linux.
func (f *ProcFinder) WatchMain(Peer) (<-chan struct{}, error) {
	return nil, errors.New("tandem watches peers on Linux only")
}
