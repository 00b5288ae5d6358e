package lifeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Holder is a held lifeline.
type Holder struct {
	path string
	fd   int
	ino  uint64
}

// Hold creates the lifeline at path, stamped with host (the pod's hostname),
// and holds it until Release or the end of the process. The descriptor is close-on-exec: CMD does not inherit it,
// so a CMD that outlives tandem cannot keep a dead main "attached".
func Hold(path, host string) (*Holder, error) { return HoldAs(path, host, KindDone) }

// HoldAs is Hold for a holder that will write a file of kind.
func HoldAs(path, host string, kind Kind) (*Holder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, &UnusableError{Path: path, Err: err}
	}
	// An earlier holder's FIFO is replaced; anything else there is not ours
	// to delete.
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeNamedPipe == 0 {
		return nil, notFIFO(path, info.Mode())
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid()))
	_ = unix.Unlink(tmp) // a leftover of an earlier holder with our pid; never a directory
	if err := unix.Mkfifo(tmp, 0o666); err != nil {
		return nil, &UnusableError{Path: path, Err: fmt.Errorf("create FIFO: %w", err)}
	}
	// 0666 whatever the umask: the sidecar may run as another user, and
	// must open it for writing once (see Watch).
	if err := os.Chmod(tmp, 0o666); err != nil {
		os.Remove(tmp)
		return nil, &UnusableError{Path: path, Err: err}
	}
	now := time.Now()
	stamp := []unix.Timespec{unix.NsecToTimespec(now.UnixNano()), {Sec: now.Unix(), Nsec: stamp(host, kind)}}
	if err := unix.UtimesNano(tmp, stamp); err != nil {
		os.Remove(tmp)
		return nil, &UnusableError{Path: path, Err: err}
	}
	// O_RDWR never blocks on a FIFO and makes the holder its writer.
	fd, err := unix.Open(tmp, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(tmp)
		return nil, &UnusableError{Path: path, Err: fmt.Errorf("open FIFO: %w", err)}
	}
	// Renamed into place only once held: a FIFO at path always had a holder,
	// so a watcher that finds it released knows the holder is gone.
	if err := os.Rename(tmp, path); err != nil {
		unix.Close(fd)
		os.Remove(tmp)
		return nil, &UnusableError{Path: path, Err: err}
	}
	var st unix.Stat_t
	_ = unix.Fstat(fd, &st)
	return &Holder{path: path, fd: fd, ino: st.Ino}, nil
}

// Release lets go: watchers see it at once. After a normal end nothing is
// left behind; the FIFO is removed unless a newer holder has replaced it.
// (Only a holder killed outright leaves its FIFO: that is how a watcher that
// comes later knows.)
func (h *Holder) Release() {
	if h == nil || h.fd < 0 {
		return
	}
	unix.Close(h.fd)
	h.fd = -1
	var st unix.Stat_t
	if unix.Lstat(h.path, &st) == nil && st.Ino == h.ino {
		_ = os.Remove(h.path)
	}
}

// Path is where the lifeline is.
func (h *Holder) Path() string { return h.path }
