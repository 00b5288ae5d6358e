package integration

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// otherUIDs holds copies of tandem and of this test binary (the helpers)
// that any uid can run: TANDEM_BIN and go test's build directory may be
// private to root. The copies are made once, in TestMain, before any test
// starts: a file open for writing while another goroutine forks leaks its
// descriptor into that child until it execs, and an exec of the copy
// during that instant fails with ETXTBSY (golang/go#22315). With no test
// running yet, nothing forks while a copy is open.
var otherUIDs struct {
	dir    string
	tandem string
	helper string
}

// copyForOtherUIDs fills otherUIDs in a fresh directory, mode 0755; the
// caller removes otherUIDs.dir when the tests are over.
func copyForOtherUIDs() error {
	dir, err := os.MkdirTemp("", "tandem-bins-")
	if err != nil {
		return err
	}
	otherUIDs.dir = dir
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	otherUIDs.tandem = filepath.Join(dir, "tandem")
	otherUIDs.helper = filepath.Join(dir, "helper")
	if err := copyExecutable(tandemBin, otherUIDs.tandem); err != nil {
		return err
	}
	return copyExecutable(helperBin, otherUIDs.helper)
}

// copyExecutable copies the executable src to dst (mode 0755, which must
// not exist yet). Only copyForOtherUIDs calls it, before any test forks.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}
