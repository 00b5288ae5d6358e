package release

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkout is a git repository holding the project's Makefile and
// .gitignore alone, committed: make release there gets past its checks of
// the checkout, and its first build fails (GO=false), as a late step would.
func checkout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"Makefile", ".gitignore"} {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
	return dir
}

// makeRelease runs make release in dir with args: its exit code (make's:
// 2 for any failure) and output.
func makeRelease(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", dir, "release", "GO=false"}, args...)...)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(name, "MAKE") && name != "MFLAGS" && name != "COSIGN_KEY" && name != "VERSION" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("make: %v", err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// noDist fails t when make left a dist/ in dir.
func noDist(t *testing.T, dir, what string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "dist")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: dist/ is there (%v); want none", what, err)
	}
}

// VERSION is vX.Y.Z with an optional pre-release, checked before anything
// is written; a release that fails later leaves no dist/ behind.
func TestReleaseVersionChecked(t *testing.T) {
	t.Parallel()
	dir := checkout(t)
	for _, v := range []string{"v1.2.3.4", "1.2.3", "v01.2.3", "v1.2.3+build.5"} {
		code, out := makeRelease(t, dir, "VERSION="+v)
		if want := "VERSION=" + v + ": expected vX.Y.Z or vX.Y.Z-PRERELEASE (semver)"; code != 2 || !strings.Contains(out, want) {
			t.Errorf("VERSION=%q: exit %d; want 2 and %q:\n%s", v, code, want, out)
		}
		noDist(t, dir, "VERSION="+v)
	}
	for _, v := range []string{"v0.0.0-ci", "v10.20.30-rc.1.beta-2"} {
		code, out := makeRelease(t, dir, "VERSION="+v)
		if code == 0 || !strings.Contains(out, "make release failed: dist/ removed") || strings.Contains(out, "realpath") {
			t.Errorf("VERSION=%s, its build failing: exit %d; want a failure, saying dist/ was removed:\n%s", v, code, out)
		}
		noDist(t, dir, "VERSION="+v+", its build failing")
	}
}

// A private key inside the checkout is refused, and never swept into a
// commit; one outside is taken.
func TestReleaseKeyOutsideCheckout(t *testing.T) {
	t.Parallel()
	dir := checkout(t)
	for _, name := range []string{"cosign.key", "cosign.pub", "keys/release.key"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "add", "-A").CombinedOutput(); err != nil {
		t.Fatalf("git add -A: %v\n%s", err, out)
	}
	if out, _ := exec.Command("git", "-C", dir, "status", "--porcelain").Output(); len(out) != 0 {
		t.Errorf("git add -A staged the key pair:\n%s", out)
	}
	for _, key := range []string{"cosign.key", filepath.Join(dir, "keys/release.key")} {
		code, out := makeRelease(t, dir, "VERSION=v1.2.3", "COSIGN_KEY="+key)
		if want := "COSIGN_KEY=" + key + ": the private key is inside the checkout"; code != 2 || !strings.Contains(out, want) {
			t.Errorf("COSIGN_KEY=%s: exit %d; want 2 and %q:\n%s", key, code, want, out)
		}
		noDist(t, dir, "COSIGN_KEY="+key)
	}
	outside := filepath.Join(t.TempDir(), "cosign.key")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := makeRelease(t, dir, "VERSION=v1.2.3", "COSIGN_KEY="+outside); code == 0 || strings.Contains(out, "inside the checkout") || !strings.Contains(out, "dist/ removed") {
		t.Errorf("COSIGN_KEY=%s: exit %d; want it taken, and the failing build to end it:\n%s", outside, code, out)
	}
}
