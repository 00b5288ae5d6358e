//go:build release

package release

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/release"
)

// TestBinariesSayTheVersion: `tandem version` and `tandemctl version` of a
// release print its version (docs/releases.md), and its commit.
func TestBinariesSayTheVersion(t *testing.T) {
	dist := distDir(t)
	meta := annotations(t, archive(t, dist, "tandem"))
	for _, name := range images {
		lines := strings.Split(output(t, exec.Command(hostBinary(t, dist, name), "version")), "\n")
		want := []string{name + " " + meta[release.AnnotationVersion], "commit " + meta[release.AnnotationRevision][:12]}
		if len(lines) < 2 || lines[0] != want[0] || lines[1] != want[1] {
			t.Errorf("%s version printed %q, want first %q", name, lines, want)
		}
	}
}

// TestTandemctlInjectsTheReleaseImage: a release's tandemctl puts the
// release's tandem image in the pods it injects (docs/inject.md, --image),
// the image `make publish` pushes.
func TestTandemctlInjectsTheReleaseImage(t *testing.T) {
	dist := distDir(t)
	version := annotations(t, archive(t, dist, "tandem"))[release.AnnotationVersion]
	job := `apiVersion: batch/v1
kind: Job
metadata: {name: one}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: busybox, command: [sh, -c, "true"]}
      - {name: proxy, image: busybox, command: [sleep, "1000"]}
`
	cmd := exec.Command(hostBinary(t, dist, "tandemctl"), "inject", "--resolve", "none", "--sidecar", "proxy", "-")
	cmd.Stdin = strings.NewReader(job)
	want := "image: ghcr.io/tandem-sh/tandem:" + version
	if out := output(t, cmd); !strings.Contains(out, want) {
		t.Errorf("inject wrote no %q:\n%s", want, out)
	}
}
