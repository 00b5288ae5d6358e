//go:build k8s

package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goModuleDir is the directory of module@version in the Go module cache,
// downloaded first if it is not there: the controllers' own manifests are
// read from the module their programs are built from.
func goModuleDir(ctx context.Context, moduleAtVersion string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", moduleAtVersion)
	// Outside the checkout: tandem's go.mod does not require the module.
	cmd.Dir = os.TempDir()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", moduleAtVersion, err)
	}
	var module struct{ Dir, Error string }
	if err := json.Unmarshal(out, &module); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", moduleAtVersion, err)
	}
	if module.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory (%s)", moduleAtVersion, module.Error)
	}
	return module.Dir, nil
}

// buildCached runs integration/k8s/SCRIPT, which builds a program from its
// Go module into the cache once (a later run finds it there), and returns
// what it printed: where the build is.
func buildCached(ctx context.Context, script string) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(repoRoot, "integration", "k8s", script)).Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w", script, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// requireInstalled skips without a cluster, and fails the test when the
// installation install does (once a run) failed.
func requireInstalled(t *testing.T, install func() error) {
	t.Helper()
	requireCluster(t)
	if err := install(); err != nil {
		t.Fatal(err)
	}
}
