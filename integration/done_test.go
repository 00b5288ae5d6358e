package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `tandem done` is the last line of a main's script that cannot be wrapped:
// it writes the same done file tandem main does.
func TestDoneWritesDoneFile(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	// A directory that does not exist yet is created (0755).
	done := filepath.Join(dir, "shared", "done")
	before := time.Now()
	code, _, stderr := runTandem(t, procOptions{}, "done", "--file", done, "--exit-code", "4", "--name", "job")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f := scWantStatus(t, done, "done", 4, "", "announced")
	if f.Name != "job" {
		t.Fatalf("name %q, want job", f.Name)
	}
	if at, _ := time.Parse(time.RFC3339Nano, f.Time); at.Before(before.Add(-time.Second)) {
		t.Fatalf("time %s is not now", f.Time)
	}
	for path, want := range map[string]os.FileMode{done: 0o644, filepath.Dir(done): 0o755} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != want {
			t.Fatalf("%s: mode %v (%v), want %v", path, info.Mode().Perm(), err, want)
		}
	}
	// Atomic write: nothing but the done file is left in the directory.
	if entries, _ := os.ReadDir(filepath.Dir(done)); len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the done file", len(entries))
	}
}

// Mistakes are usage errors (2) and write nothing; a named peer that never
// shows up is exit 1.
func TestDoneErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"nothing to announce", []string{"done"}, 2, "nothing to announce"},
		{"exit code out of range", []string{"done", "--file", "FILE", "--exit-code", "256"}, 2, `--exit-code "256"`},
		{"stray argument", []string{"done", "--file", "FILE", "extra"}, 2, "unexpected argument"},
		{"missing peer", []string{"done", "--peer", "sc-no-such-sidecar-7f3a", "--peer-timeout", "200ms"}, 1, "sc-no-such-sidecar-7f3a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := inDir(tempDir(t), "done")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "FILE", file)
			}
			code, _, stderr := runTandem(t, procOptions{}, args...)
			if code != tc.code || !strings.Contains(stderr, tc.says) {
				t.Fatalf("exit %d, want %d with %q; stderr:\n%s", code, tc.code, tc.says, stderr)
			}
			if _, err := os.Stat(file); err == nil {
				t.Fatal("done file written despite the error")
			}
		})
	}
}
