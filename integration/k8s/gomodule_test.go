//go:build k8s

package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
