//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// realprogImage holds real programs from Debian (postgres, pgbouncer, psql
// and pg_dump, nginx, curl, GNU tail) and tandem: realprog/image.sh.
const realprogImage = "localhost/tandem-e2e/realprog:test"

var realprogBuild struct {
	sync.Once
	skip string // why this machine cannot build it
	err  error
}

// requireRealprog builds realprogImage on the first call of a run, so that
// a -run filter without real-program tests never pays for it.
func requireRealprog(t *testing.T) {
	t.Helper()
	requirePodman(t)
	realprogBuild.Do(func() {
		if _, err := exec.LookPath("mmdebstrap"); err != nil {
			realprogBuild.skip = "mmdebstrap not found in PATH (.ci/run installs it)"
			if os.Getenv("TANDEM_E2E_REQUIRED") != "" {
				realprogBuild.err = fmt.Errorf("TANDEM_E2E_REQUIRED is set, but %s", realprogBuild.skip)
			}
			return
		}
		realprogBuild.err = buildRealprogImage()
	})
	if realprogBuild.err != nil {
		t.Fatal(realprogBuild.err)
	}
	if realprogBuild.skip != "" {
		t.Skip(realprogBuild.skip)
	}
}

// buildRealprogImage runs realprog/image.sh with the tandem under test. A
// cold rootfs takes minutes (mmdebstrap); a cached one a few seconds.
func buildRealprogImage() error {
	work, err := os.MkdirTemp("", "tandem-realprog-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	tandem, err := tandemBinary(work)
	if err != nil {
		return err
	}
	start := time.Now()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(filepath.Join(repoRoot, "integration", "e2e", "realprog", "image.sh"), tandem, realprogImage)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("realprog/image.sh: %w\n%s", err, stderr.Bytes())
	}
	if got := strings.TrimSpace(stdout.String()); got != realprogImage {
		return fmt.Errorf("realprog/image.sh printed %q; expected %q", got, realprogImage)
	}
	size, _, _ := podman(context.Background(), "image", "inspect", "--format", "{{.Size}}", realprogImage)
	fmt.Fprintf(os.Stderr, "e2e: %s ready in %s (%s bytes)\n%s", realprogImage,
		time.Since(start).Round(time.Millisecond), strings.TrimSpace(size), stderr.Bytes())
	return nil
}
