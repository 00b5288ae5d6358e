// Package install copies the running tandem binary into a shared volume
// (the init-copy pattern: scratch images have no cp).
package install

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Self copies the running binary to dir/tandem, mode 0555, through a
// temporary file and a rename: a container that runs dir/tandem at the same
// moment sees the old binary or the new one, never a partial copy. Running it
// twice gives the same result. Scratch images have no cp, hence this command.
func Self(dir string) (string, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("install into %q: %w (expected an existing directory, e.g. an emptyDir mount)", dir, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("install into %q: not a directory (expected an existing directory, e.g. an emptyDir mount)", dir)
	}
	src, err := openSelf()
	if err != nil {
		return "", fmt.Errorf("install: open the running binary: %w", err)
	}
	defer src.Close()
	target := filepath.Join(dir, "tandem")
	tmp, err := os.CreateTemp(dir, ".tandem.tmp-*")
	if err != nil {
		return "", fmt.Errorf("install into %q: %w (the directory must be writable)", dir, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Chmod(0o555)
	}
	if err == nil {
		err = tmp.Sync() // the next container may start on it at once
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		return "", fmt.Errorf("install %s: %w", target, err)
	}
	return target, nil
}

// openSelf opens the running binary even when its path has since changed.
func openSelf() (*os.File, error) {
	if f, err := os.Open("/proc/self/exe"); err == nil {
		return f, nil
	}
	path, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return os.Open(path)
}
