package statusfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Unlink removes files and never a directory, empty or not (os.Remove
// removes an empty one); a file already gone is no error.
func TestUnlink(t *testing.T) {
	dir := t.TempDir()
	file, empty := filepath.Join(dir, "done"), filepath.Join(dir, "empty")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Unlink(file); err != nil {
		t.Errorf("Unlink(file) = %v", err)
	}
	if _, err := os.Lstat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file still there: %v", err)
	}
	if err := Unlink(file); err != nil {
		t.Errorf("Unlink(gone) = %v, want nil", err)
	}
	if err := Unlink(empty); !errors.Is(err, ErrIsDirectory) {
		t.Errorf("Unlink(empty directory) = %v, want ErrIsDirectory", err)
	}
	if info, err := os.Stat(empty); err != nil || !info.IsDir() {
		t.Errorf("the empty directory is gone: %v", err)
	}
}

// Writable creates a missing directory as Write would, leaves nothing
// behind, and refuses a directory at the path.
func TestWritable(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "a", "b")
	if err := Writable(filepath.Join(nested, "done")); err != nil {
		t.Fatalf("Writable = %v", err)
	}
	if entries, err := os.ReadDir(nested); err != nil || len(entries) != 0 {
		t.Errorf("%s holds %v (%v), want an empty directory", nested, entries, err)
	}
	if err := Writable(nested); !errors.Is(err, ErrIsDirectory) {
		t.Errorf("Writable(directory) = %v, want ErrIsDirectory", err)
	}
}
