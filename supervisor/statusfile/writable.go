package statusfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ErrIsDirectory: a directory stands where a file is to be written. tandem
// never removes a directory, nor writes in its place.
var ErrIsDirectory = errors.New("it is a directory, not a file")

// Writable proves, before anything runs, that Write(path) can work: path is
// not a directory, and its directory exists (created as Write would) and
// takes a new file, which is created and unlinked at once. The error says
// which step failed.
func Writable(path string) error {
	if info, err := os.Lstat(path); err == nil && info.IsDir() {
		return ErrIsDirectory
	}
	dir := filepath.Dir(path)
	if err := mkdirAllReadable(dir); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe-*")
	if err != nil {
		return fmt.Errorf("create a file: %w", err)
	}
	probe.Close()
	return Unlink(probe.Name())
}

// Unlink removes the file at path, and never a directory (os.Remove would
// remove an empty one). A file already gone is not an error.
func Unlink(path string) error {
	err := unix.Unlink(path)
	switch {
	case err == nil, errors.Is(err, unix.ENOENT):
		return nil
	case errors.Is(err, unix.EISDIR):
		return &os.PathError{Op: "unlink", Path: path, Err: ErrIsDirectory}
	}
	return &os.PathError{Op: "unlink", Path: path, Err: err}
}
