//go:build release

package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/tandem-sh/tandem/internal/release"
)

// images are the release's images, each dist/NAME-image.tar.
var images = []string{"tandem", "tandemctl"}

// skipUnless skips the test for want of what, or fails it under
// TANDEM_RELEASE_REQUIRED (CI).
func skipUnless(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("TANDEM_RELEASE_REQUIRED") != "" {
		t.Fatalf("TANDEM_RELEASE_REQUIRED is set, but %s", what)
	}
	t.Skip(what)
}

// distDir is TANDEM_DIST, the dist/ of `make release`.
func distDir(t *testing.T) string {
	t.Helper()
	dist := os.Getenv("TANDEM_DIST")
	skipUnless(t, dist != "", "TANDEM_DIST is not set (the dist/ of make release)")
	return dist
}

// archive is the multi-arch index of dist/NAME-image.tar.
func archive(t *testing.T, dist, name string) v1.ImageIndex {
	t.Helper()
	idx, cleanup, err := release.OpenArchive(filepath.Join(dist, name+"-image.tar"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	return idx
}

// annotations is idx's index manifest's annotations.
func annotations(t *testing.T, idx v1.ImageIndex) map[string]string {
	t.Helper()
	manifest, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	return manifest.Annotations
}

// hostBinary is dist's NAME for this machine's architecture.
func hostBinary(t *testing.T, dist, name string) string {
	t.Helper()
	path := filepath.Join(dist, name+"-linux-"+runtime.GOARCH)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s for this machine: %v", name, err)
	}
	return path
}

// output runs a command and returns its stdout; a failure fails the test.
func output(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return string(out)
}
