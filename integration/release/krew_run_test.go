//go:build release

package release

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/release"
)

// TestKrewArchiveRunsAsKubectlTandem: this machine's archive, unpacked,
// holds at bin a kubectl-tandem that runs and says the release's version.
func TestKrewArchiveRunsAsKubectlTandem(t *testing.T) {
	dist := distDir(t)
	version := annotations(t, archive(t, dist, "tandem"))[release.AnnotationVersion]
	pl := krewPlatform(t, readKrewManifest(t, dist), runtime.GOARCH)
	dir := t.TempDir()
	unpackKrewArchive(t, filepath.Join(dist, path.Base(pl.URI)), dir)
	checkSaysVersion(t, filepath.Join(dir, pl.Bin), version)
}

// TestKrewInstallsThePlugin: krew itself (its CLI at the version go.mod
// pins) installs the plugin from dist/'s manifest and this machine's
// archive into a new KREW_ROOT, checking the archive's SHA-256 against the
// manifest as it does for a download, and the kubectl-tandem it links
// into KREW_ROOT/bin runs.
func TestKrewInstallsThePlugin(t *testing.T) {
	dist := distDir(t)
	version := annotations(t, archive(t, dist, "tandem"))[release.AnnotationVersion]
	pl := krewPlatform(t, readKrewManifest(t, dist), runtime.GOARCH)
	root, out, err := krewInstall(t, dist, filepath.Join(dist, path.Base(pl.URI)))
	if err != nil {
		t.Fatalf("krew install: %v\n%s", err, out)
	}
	t.Logf("krew install:\n%s", out)
	bin := filepath.Join(root, "bin", "kubectl-tandem")
	if target, err := filepath.EvalSymlinks(bin); err != nil || !strings.HasPrefix(target, filepath.Join(root, "store", "tandem", version)) {
		t.Errorf("%s links to %q (%v), want into krew's store, %s/store/tandem/%s", bin, target, err, root, version)
	}
	checkSaysVersion(t, bin, version)
}

// TestKrewRefusesAnotherArchive is the control of the test above: krew
// refuses to install the other architecture's archive for this machine,
// its SHA-256 not the manifest's, and links nothing.
func TestKrewRefusesAnotherArchive(t *testing.T) {
	dist := distDir(t)
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
	pl := krewPlatform(t, readKrewManifest(t, dist), other)
	root, out, err := krewInstall(t, dist, filepath.Join(dist, path.Base(pl.URI)))
	if err == nil || !strings.Contains(string(out), "checksum does not match") {
		t.Errorf("krew install of the linux/%s archive on linux/%s: %v, want a checksum mismatch:\n%s", other, runtime.GOARCH, err, out)
	}
	if _, err := os.Lstat(filepath.Join(root, "bin", "kubectl-tandem")); err == nil {
		t.Error("krew linked kubectl-tandem all the same")
	}
}

// krewInstall runs `krew install --manifest --archive` for this machine
// into a new KREW_ROOT, which it returns with krew's output.
func krewInstall(t *testing.T, dist, archive string) (string, []byte, error) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	skipUnless(t, err == nil, "no go command, to run krew (a tool in go.mod)")
	root := t.TempDir()
	install := exec.Command(goCmd, "tool", "krew", "install",
		"--manifest="+filepath.Join(dist, release.KrewManifestFile), "--archive="+archive)
	install.Env = append(os.Environ(), "KREW_ROOT="+root, "KREW_OS=linux", "KREW_ARCH="+runtime.GOARCH)
	out, err := install.CombinedOutput()
	return root, out, err
}

// checkSaysVersion: `BIN version` prints tandemctl and version first.
func checkSaysVersion(t *testing.T, bin, version string) {
	t.Helper()
	out := output(t, exec.Command(bin, "version"))
	if first, _, _ := strings.Cut(out, "\n"); first != "tandemctl "+version {
		t.Errorf("%s version printed %q, want first tandemctl %s", bin, out, version)
	}
}
