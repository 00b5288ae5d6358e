package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Files and directories the tests share with helpers and tandem: waiting
// for them, reading them, and making them reachable for other uids.

// worldWritableDir is a fresh directory that every uid can enter and write,
// like an emptyDir, removed when the test ends. (t.TempDir's parent is 0700,
// closed to other uids.)
func worldWritableDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tandem-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitFile blocks until path exists with a complete last line, and returns
// its content.
func waitFile(t testing.TB, path string) string {
	t.Helper()
	var data []byte
	waitInDir(t, path, "a complete line", func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil && bytes.HasSuffix(data, []byte("\n"))
	})
	return string(data)
}

// waitLines blocks until the file at path has at least n complete lines.
func waitLines(t testing.TB, path string, n int) []string {
	t.Helper()
	var lines []string
	waitInDir(t, path, fmt.Sprintf("%d lines", n), func() bool {
		lines = readLines(path)
		return len(lines) >= n
	})
	return lines
}

// waitInDir re-checks ready whenever inotify reports a change in path's
// directory, until it holds or testTimeout passes.
func waitInDir(t testing.TB, path, what string, ready func() bool) {
	t.Helper()
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if err := watcher.Add(filepath.Dir(path)); err != nil {
		t.Fatalf("watch %s: %v", filepath.Dir(path), err)
	}
	deadline := time.After(testTimeout)
	for !ready() {
		select {
		case <-watcher.Events:
		case err := <-watcher.Errors:
			t.Fatalf("watch %s: %v", path, err)
		case <-deadline:
			t.Fatalf("%s: no %s within %s; content %q", path, what, testTimeout, readLines(path))
		}
	}
}

// readLines returns the non-empty lines of a file, or nil when missing.
func readLines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// tempDir is a per-test directory (t.TempDir, made world-writable like an
// emptyDir so helpers running as other uids can use it).
func tempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

func inDir(dir, name string) string { return filepath.Join(dir, name) }
