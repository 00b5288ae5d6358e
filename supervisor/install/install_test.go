package install

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/testkit"
)

// runningBinary is what Self must copy: this test binary.
func runningBinary(t *testing.T) []byte {
	t.Helper()
	path, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSelfCopiesTheRunningBinary(t *testing.T) {
	dir := t.TempDir()
	target, err := Self(dir)
	if err != nil {
		t.Fatal(err)
	}
	if target != filepath.Join(dir, "tandem") {
		t.Errorf("target %q, want %q", target, filepath.Join(dir, "tandem"))
	}
	assertInstalled(t, dir, runningBinary(t))
}

// assertInstalled: dir holds tandem alone (no temporary file left), a
// read-only executable copy of want.
func assertInstalled(t *testing.T, dir string, want []byte) {
	t.Helper()
	testkit.OnlyEntry(t, dir, "tandem")
	target := filepath.Join(dir, "tandem")
	info, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode() != 0o555 {
		t.Errorf("mode %v, want -r-xr-xr-x", info.Mode())
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the copy (%d bytes) differs from the running binary (%d bytes)", len(got), len(want))
	}
}

func TestSelfIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	for i := range 2 {
		if _, err := Self(dir); err != nil {
			t.Fatalf("install %d: %v", i+1, err)
		}
	}
	assertInstalled(t, dir, runningBinary(t))
}

// TestSelfReplacesAtomically: an existing tandem is replaced by a rename, not
// rewritten in place, so a process that has it open (or is running it) keeps
// reading the old binary whole.
func TestSelfReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "tandem")
	if err := os.WriteFile(target, []byte("old binary"), 0o555); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := Self(dir); err != nil {
		t.Fatal(err)
	}
	assertInstalled(t, dir, runningBinary(t))
	data, err := io.ReadAll(old)
	if err != nil || string(data) != "old binary" {
		t.Errorf("the open old file now reads %d bytes (%v), want \"old binary\": it was rewritten in place", len(data), err)
	}
	oldInfo, _ := old.Stat()
	newInfo, _ := os.Stat(target)
	if os.SameFile(oldInfo, newInfo) {
		t.Error("the target is the same inode as before: not replaced by a rename")
	}
}

func TestSelfErrorsNameThePath(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "no-such-dir")
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
	}{
		{"missing dir", missing, "existing directory"},
		{"a file", file, "not a directory"},
		// Not writable even by root: procfs refuses new files.
		{"unwritable dir", "/proc", "writable"},
		{"unwritable dir (mode)", readOnlyDir(t, base), "writable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.dir == "" {
				t.Skip("running as root: mode 0555 does not stop root from writing")
			}
			target, err := Self(tt.dir)
			if err == nil {
				t.Fatalf("Self(%q) succeeded with %q", tt.dir, target)
			}
			if !strings.Contains(err.Error(), tt.dir) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q and %q", err, tt.dir, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(missing, "tandem")); err == nil {
		t.Error("a failed install left a file behind")
	}
}

// readOnlyDir is a directory of mode 0555, or "" when this user (root) can
// write into it anyway.
func readOnlyDir(t *testing.T, base string) string {
	t.Helper()
	dir := filepath.Join(base, "read-only")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	if unix.Access(dir, unix.W_OK) == nil {
		return ""
	}
	return dir
}
