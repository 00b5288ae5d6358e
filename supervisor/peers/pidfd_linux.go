package peers

import (
	"errors"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// SignalPeer pins the process with a pidfd, checks that it is still the
// sidecar the scan found, and signals through the pidfd: a pid reused by
// another process between the scan and the signal gets nothing (ESRCH).
func (f *ProcFinder) SignalPeer(p Peer, sig unix.Signal) error {
	pidfd, err := unix.PidfdOpen(p.PID, 0)
	if errors.Is(err, unix.ENOSYS) {
		return unix.Kill(p.PID, sig) // kernels before 5.3
	}
	if err != nil {
		return err
	}
	defer unix.Close(pidfd)
	cmdline, err := readSmallFile(filepath.Join(f.procRoot, strconv.Itoa(p.PID), "cmdline"))
	if name, ok := parseCmdline(cmdline); err != nil || !ok || name != p.Name {
		return unix.ESRCH
	}
	return unix.PidfdSendSignal(pidfd, sig, nil, 0)
}
