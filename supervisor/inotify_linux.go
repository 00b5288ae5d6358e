package supervisor

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotifyMask: what changes a done file, its lifeline or its directory
// (created, written, moved, deleted). Not IN_ATTRIB: a chmod says nothing.
const inotifyMask = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_MOVED_TO | unix.IN_MOVED_FROM |
	unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

var errInotifyOverflow = errors.New("inotify queue overflow: events were lost")

// inotifyEvent is one event as read: the watch it came on, and the name in
// the watched directory ("" for the directory itself).
type inotifyEvent struct {
	wd       int32
	name     string
	ignored  bool // the watch is gone (its directory deleted or unwatched)
	overflow bool
}

// openInotify makes an inotify instance that the Go poller waits on: a
// Read parks the goroutine, and Close wakes it.
func openInotify() (*os.File, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "inotify"), nil
}

// addInotifyWatch watches dir on f, and says under which descriptor.
func addInotifyWatch(f *os.File, dir string) (int32, error) {
	wd, err := unix.InotifyAddWatch(int(f.Fd()), dir, inotifyMask)
	return int32(wd), err
}

// removeInotifyWatch ends the watch wd on f. It does not wait for the
// kernel to free the watch, which closing f would.
func removeInotifyWatch(f *os.File, wd int32) error {
	_, err := unix.InotifyRmWatch(int(f.Fd()), uint32(wd))
	return err
}

// parseInotify splits what one read gave into events.
func parseInotify(buf []byte, each func(inotifyEvent)) {
	for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
		raw := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		end := off + unix.SizeofInotifyEvent + int(raw.Len)
		if end > len(buf) {
			return
		}
		name := buf[off+unix.SizeofInotifyEvent : end]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		each(inotifyEvent{wd: raw.Wd, name: string(name),
			ignored: raw.Mask&unix.IN_IGNORED != 0, overflow: raw.Mask&unix.IN_Q_OVERFLOW != 0})
		off = end
	}
}
