package statusfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// readUpToLimit reads at most maxStatusFileRead bytes of path with plain
// system calls: an os.File would also try to register the descriptor with
// the Go poller (refused for a regular file) and read in more steps, and
// this read lies between the done file and the stop signal.
// present is true whenever the path exists.
func readUpToLimit(path string) (data []byte, present bool, err error) {
	// O_NONBLOCK: opening a FIFO for reading blocks until a writer comes, and
	// a done file that is one must not hang tandem. Regular files ignore it.
	fd, err := openRetry(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, false, nil
		}
		// Exists but unreadable (permissions): present, status unknown.
		var st unix.Stat_t
		if unix.Stat(path, &st) == nil {
			return nil, true, fmt.Errorf("%w (%s, %s)", err, kind(&st), permissions(&st))
		}
		return nil, false, err
	}
	defer unix.Close(fd)
	// A directory, FIFO, socket or device: present, status unknown. Reading
	// one could fail, block, or never end (/dev/zero).
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, true, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, true, fmt.Errorf("%s is %s, not a regular file (%s)", path, kind(&st), permissions(&st))
	}
	return readAll(fd, path, min(st.Size+1, maxStatusFileRead))
}

func openRetry(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			if err != nil {
				return -1, &os.PathError{Op: "open", Path: path, Err: err}
			}
			return fd, nil
		}
	}
}

// readAll reads fd, a regular file, to its end or to maxStatusFileRead
// bytes; sizeHint is the first buffer's size (the file's size and one, to
// see the end in one read when it does not grow).
func readAll(fd int, path string, sizeHint int64) ([]byte, bool, error) {
	buf := make([]byte, 0, max(sizeHint, 512))
	for len(buf) < maxStatusFileRead {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		free := buf[len(buf):min(cap(buf), maxStatusFileRead)]
		n, err := unix.Read(fd, free)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, true, &os.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return buf, true, nil
		}
		buf = buf[:len(buf)+n]
		if n < len(free) {
			// A regular file reads short only at its end: no second read
			// to hear it again (one system call fewer before the stop).
			return buf, true, nil
		}
	}
	return buf, true, nil
}
