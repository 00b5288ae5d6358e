package peers

import (
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// WatchMain holds the main found by FindMain through a pidfd, after checking
// that the pid still is that main (a reused pid is not), and closes the
// returned channel when it ends. The wait is in the kernel: no timer.
func (f *ProcFinder) WatchMain(p Peer) (<-chan struct{}, error) {
	pidfd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return nil, err
	}
	cmdline, err := readSmallFile(filepath.Join(f.procRoot, strconv.Itoa(p.PID), "cmdline"))
	if err != nil || !mainSignals(cmdline, p.Name) {
		unix.Close(pidfd)
		return nil, unix.ESRCH
	}
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		defer unix.Close(pidfd)
		fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				return
			}
		}
	}()
	return gone, nil
}
