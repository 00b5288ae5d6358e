//go:build release

package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/release"
	"github.com/tandem-sh/tandem/internal/release/helmchart"
)

// TestChartIsPublished: dist/ holds the chart tandem-X.Y.Z.tgz of the
// release's version, in SHA256SUMS, whose image is the release's
// tandemctl; `make publish` pushes it, and `helm pull` (Helm's own
// command) from oci://REGISTRY/charts/tandem gets the very archive.
func TestChartIsPublished(t *testing.T) {
	dist := distDir(t)
	version := annotations(t, archive(t, dist, "tandem"))[release.AnnotationVersion]
	chartVersion, err := helmchart.Version(version)
	if err != nil {
		t.Fatal(err)
	}
	name := "tandem-" + chartVersion + ".tgz"
	packaged := filepath.Join(dist, name)
	if got, want := sha256Hex(t, packaged), readSHA256SUMS(t, dist)[name]; got != want {
		t.Errorf("SHA256SUMS says %s: %q, the file's is %s", name, want, got)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rendered := output(t, helm(root, "template", "tandem", packaged))
	if want := "image: ghcr.io/tandem-sh/tandemctl:" + version + "\n"; !strings.Contains(rendered, want) {
		t.Errorf("the packaged chart does not render %q", strings.TrimSpace(want))
	}
	registry := startRegistry(t) + "/tandem-sh"
	t.Logf("make publish:\n%s", output(t, exec.Command("make", "--no-print-directory", "-C", root, "publish",
		"VERSION="+version, "REGISTRY="+registry, "DIST="+dist)))
	pulled := t.TempDir()
	output(t, helm(root, "pull", "oci://"+helmchart.Ref(registry), "--version", chartVersion, "--plain-http", "-d", pulled))
	got, err := os.ReadFile(filepath.Join(pulled, name))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(packaged)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("helm pull got %d bytes, not dist/%s (%d bytes)", len(got), name, len(want))
	}
}

// helm is Helm's command, the tool go.mod pins, run in the module at root.
func helm(root string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"tool", "helm"}, args...)...)
	cmd.Dir = root
	return cmd
}
