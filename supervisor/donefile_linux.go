package supervisor

import "golang.org/x/sys/unix"

// fsnotifyMissing is what inotify_add_watch returns for a missing directory.
var fsnotifyMissing = unix.ENOENT
