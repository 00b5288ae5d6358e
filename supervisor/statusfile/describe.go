package statusfile

import (
	"fmt"
	"os"
	"os/user"
	"strconv"

	"golang.org/x/sys/unix"
)

// CurrentUser is who tandem runs as, for errors about permissions: the
// uid, and its name where /etc/passwd has one.
func CurrentUser() string {
	uid := strconv.Itoa(os.Geteuid())
	if u, err := user.LookupId(uid); err == nil && u.Username != "" {
		return "uid " + uid + " (" + u.Username + ")"
	}
	return "uid " + uid
}

// permissions says who may do what with st as a person reads it, with
// the user tandem runs as: "mode 0700, owner uid 1000; tandem runs as uid
// 65534 (nobody)".
func permissions(st *unix.Stat_t) string {
	return fmt.Sprintf("mode %04o, owner uid %d; tandem runs as %s", st.Mode&0o7777, st.Uid, CurrentUser())
}

// kind names what st is, with its article.
func kind(st *unix.Stat_t) string {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "a regular file"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "a special file"
}
