package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// pathError: a file tandem must write, or a done file it must see, cannot
// be, as this user. tandem fails (125) rather than run CMD for nothing or
// wait for ever; a directory where a file should be is a usage error (2).
type pathError struct {
	flag string // the flag that named path
	path string
	dir  string // the directory at fault
	what string // what tandem cannot do there
	err  error  // the cause, as the kernel said it
}

func (e *pathError) Error() string {
	return fmt.Sprintf("--%s %s: cannot %s %s as %s: %v", e.flag, e.path, e.what, e.dir, statusfile.CurrentUser(), e.err)
}

func (e *pathError) Unwrap() error { return e.err }

func (e *pathError) ExitCode() int {
	if errors.Is(e.err, statusfile.ErrIsDirectory) {
		return exitcode.Usage
	}
	return exitcode.Internal
}

// log is the error line that says it, with a field for each part.
func (e *pathError) log(log zerolog.Logger) {
	event(log.Error(), cmdline.EventPathUnusable).Str("flag", "--"+e.flag).Str("path", e.path).Str("dir", e.dir).
		Int("uid", os.Geteuid()).Str("user", statusfile.CurrentUser()).Str("cause", e.err.Error()).Msg(e.Error())
}

// writableFile proves that tandem can write path (flag names it) before
// anything runs: its directory takes new files.
func writableFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := statusfile.Writable(path); err != nil {
		what, dir := "create files in", filepath.Dir(path)
		if errors.Is(err, statusfile.ErrIsDirectory) {
			what, dir = "write over directory", path
		}
		return &pathError{flag: flag, path: path, dir: dir, what: what, err: cause(err)}
	}
	return nil
}

// writableFiles is writableFile over pairs of flag and path, in order.
func writableFiles(flagsAndPaths ...string) error {
	for i := 0; i+1 < len(flagsAndPaths); i += 2 {
		if err := writableFile(flagsAndPaths[i], flagsAndPaths[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// unsearchable is a done file that cannot even be looked for (permission
// denied on a directory on its way), else nil: waiting for it would be for
// ever.
func unsearchable(path string) error {
	_, err := os.Lstat(path)
	if !errors.Is(err, fs.ErrPermission) {
		return nil
	}
	return &pathError{flag: cmdline.FlagDoneFile, path: path, dir: blockingDir(path), what: "search directory",
		err: cause(err)}
}

// blockingDir is the deepest directory on path's way that can be seen:
// path cannot, so that one cannot be searched.
func blockingDir(path string) string {
	d := filepath.Dir(path)
	for {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			return d
		}
		d = filepath.Dir(d)
	}
}

// cause is the kernel's word for err ("permission denied", "read-only file
// system"), without the paths the wrapping repeats.
func cause(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}

// pathFailed logs a path that cannot be used and is tandem's outcome.
func pathFailed(log zerolog.Logger, err error) outcome {
	logFailure(log, err, "tandem failed")
	return failed(err)
}

// logFailure is the error line for tandem's own failure: a path's with a
// field for each part, else msg.
func logFailure(log zerolog.Logger, err error, msg string) {
	var pathErr *pathError
	if errors.As(err, &pathErr) {
		pathErr.log(log)
		return
	}
	event(log.Error(), cmdline.EventFailed).Err(err).Msg(msg)
}

// SamePath: a and b name the same file, once absolute and cleaned (a path
// flag has no ".." component, so the text's and the kernel's agree).
func SamePath(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
