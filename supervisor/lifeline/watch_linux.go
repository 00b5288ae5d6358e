package lifeline

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Line is a watched lifeline.
type Line struct {
	path string
	ino  uint64
	kind Kind
	file *os.File
}

// Watch opens the lifeline at path for a sidecar of the pod named host. It
// returns ErrAbsent when there is none, ErrForeign when another pod's
// tandem holds it, ErrReleased (with the Line, for its identity) when its
// holder is already gone, an *UnusableError when the path holds something
// else or cannot be opened; else the Line, attached.
func Watch(path, host string) (*Line, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, ErrAbsent
		}
		return nil, &UnusableError{Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil, notFIFO(path, fileMode(st.Mode))
	}
	tag, kind, stamped := unstamp(st.Mtim.Nsec)
	if host != "" && stamped && tag != hostTag(host) {
		return nil, ErrForeign
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, ErrAbsent // replaced between the two calls
		}
		return nil, &UnusableError{Path: path, Err: err}
	}
	l := &Line{path: path, ino: st.Ino, kind: kind, file: os.NewFile(uintptr(fd), path)}
	if l.released() {
		return l, ErrReleased
	}
	return l, nil
}

// released asks the kernel whether any writer holds the FIFO: a read returns
// end-of-file when none does, EAGAIN while one does. The holder never writes.
func (l *Line) released() bool {
	raw, err := l.file.SyscallConn()
	if err != nil {
		return false
	}
	var n int
	var readErr error
	_ = raw.Read(func(fd uintptr) bool {
		var buf [1]byte
		n, readErr = unix.Read(int(fd), buf[:])
		return true // one try, no waiting
	})
	return n == 0 && readErr == nil
}

// Wait blocks until the holder lets go (nil), or Close is called (an error).
// It waits in the runtime's poller: no timer, no wake-up meanwhile.
func (l *Line) Wait() error {
	var buf [1]byte
	for {
		n, err := l.file.Read(buf[:])
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return err
			}
			return nil // io.EOF: no writer holds it
		}
		if n == 0 {
			return nil
		}
		// Someone wrote into it; the holder never does. Keep waiting.
	}
}

// Kind is what its holder writes: a main's done file, or a sidecar's
// stopped file.
func (l *Line) Kind() Kind { return l.kind }

// Same reports whether path still is this lifeline (not one a new holder
// put in its place).
func (l *Line) Same() bool {
	var st unix.Stat_t
	return unix.Lstat(l.path, &st) == nil && st.Ino == l.ino
}

// Close stops watching; a blocked Wait returns.
func (l *Line) Close() { l.file.Close() }

func fileMode(m uint32) os.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return os.ModeDir
	case unix.S_IFREG:
		return 0
	case unix.S_IFLNK:
		return os.ModeSymlink
	case unix.S_IFSOCK:
		return os.ModeSocket
	case unix.S_IFCHR, unix.S_IFBLK:
		return os.ModeDevice
	}
	return os.ModeIrregular
}
