package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installedFiles lists dir's entries: an install leaves DIR/tandem alone,
// never a temporary file.
func installedFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkInstalled asserts that dir/tandem is a mode 0555 copy of the binary
// under test that runs.
func checkInstalled(t *testing.T, dir string) {
	t.Helper()
	target := filepath.Join(dir, "tandem")
	info, err := os.Stat(target)
	if err != nil {
		t.Fatalf("install left no %s: %v", target, err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm() != 0o555 {
		t.Errorf("%s has mode %v, want a regular file with 0555", target, info.Mode())
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(tandemBin)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s (%d bytes) is not a copy of %s (%d bytes)", target, len(got), tandemBin, len(want))
	}
	out, err := exec.Command(target, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "tandem ") {
		t.Fatalf("%s version: %v, %q", target, err, out)
	}
	if names := installedFiles(t, dir); len(names) != 1 || names[0] != "tandem" {
		t.Errorf("%s holds %q, want just tandem", dir, names)
	}
}

// TestInstall: `tandem install DIR` copies the binary to DIR/tandem, mode
// 0555, and running it again (even while the copy runs) is fine.
func TestInstall(t *testing.T) {
	dir := tempDir(t)
	if code, _, stderr := runTandem(t, procOptions{}, "install", dir); code != 0 {
		t.Fatalf("install exited %d: %s", code, stderr)
	}
	checkInstalled(t, dir)

	// A container may be running DIR/tandem already: replacing a running
	// binary must not fail (writing into it in place would, ETXTBSY).
	running := exec.Command(filepath.Join(dir, "tandem"), "run", "--", helperBin, helperArg, "sleep")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = running.Process.Kill(); _ = running.Wait() })
	if code, _, stderr := runTandem(t, procOptions{}, "install", dir); code != 0 {
		t.Fatalf("second install exited %d: %s", code, stderr)
	}
	checkInstalled(t, dir)
}

// TestInstallFailures: a DIR that cannot take the copy is tandem's own
// failure (125) with a message naming it, and leaves nothing behind; a
// wrong number of operands is a usage error (2).
func TestInstallFailures(t *testing.T) {
	t.Run("missing DIR", func(t *testing.T) {
		parent := tempDir(t)
		missing := inDir(parent, "no-such-dir")
		code, stdout, stderr := runTandem(t, procOptions{}, "install", missing)
		if code != 125 {
			t.Fatalf("install into a missing DIR exited %d, want 125: %s", code, stderr)
		}
		if !strings.Contains(stderr, missing) || stdout != "" {
			t.Errorf("the message does not name %s (stdout %q): %s", missing, stdout, stderr)
		}
		if names := installedFiles(t, parent); len(names) != 0 {
			t.Errorf("failed install left %q in %s", names, parent)
		}
	})

	t.Run("DIR is a file", func(t *testing.T) {
		file := inDir(tempDir(t), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runTandem(t, procOptions{}, "install", file); code != 125 || !strings.Contains(stderr, file) {
			t.Fatalf("install into a file exited %d, want 125 naming it: %s", code, stderr)
		}
	})

	t.Run("rename fails", func(t *testing.T) {
		// DIR/tandem is a non-empty directory: the copy is written, then
		// cannot be renamed into place, and must be removed.
		dir := tempDir(t)
		if err := os.MkdirAll(filepath.Join(dir, "tandem", "in-the-way"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runTandem(t, procOptions{}, "install", dir)
		if code != 125 || !strings.Contains(stderr, filepath.Join(dir, "tandem")) {
			t.Fatalf("install exited %d, want 125 naming %s: %s", code, filepath.Join(dir, "tandem"), stderr)
		}
		if names := installedFiles(t, dir); len(names) != 1 || names[0] != "tandem" {
			t.Errorf("failed install left %q in %s, want only the directory in the way", names, dir)
		}
	})

	for name, args := range map[string][]string{
		"no operand":   {"install"},
		"two operands": {"install", tempDir(t), tempDir(t)},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runTandem(t, procOptions{}, args...)
			if code != 2 || !strings.Contains(stderr, "DIR") {
				t.Fatalf("tandem %q exited %d, want 2 with a message naming DIR: %s", args, code, stderr)
			}
		})
	}
}
