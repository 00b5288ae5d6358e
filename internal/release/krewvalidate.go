package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// KrewValidator runs krew's own validate-krew-manifest, the check
// krew-index runs on every manifest submitted to it: its validation
// package is internal to krew and cannot be imported, so the release runs
// krew's command, pinned by go.mod (a tool there) and built with the
// module graph go.sum fixes.
type KrewValidator struct {
	Go string // the go command; "" is go
}

// Validate checks manifest with krew's validator: krew's structural
// validation (apiVersion, kind, name, semver version, sha256s, bin,
// files, selectors of only os and arch), every platform matching one krew
// supports, and no two matching the same. It skips the install step,
// which would download each uri. The manifest is validated as NAME.yaml
// in a scratch directory, the file name krew takes the plugin's name from.
func (v KrewValidator) Validate(ctx context.Context, manifest []byte) error {
	dir, err := os.MkdirTemp("", "tandem-krew-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, KrewPlugin+".yaml")
	if err := os.WriteFile(path, manifest, 0o644); err != nil {
		return err
	}
	goCmd := v.Go
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "tool", "validate-krew-manifest", "-skip-install", "-manifest", path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("krew's validate-krew-manifest rejects the manifest: %s (%v)", krewFatal(out.String()), err)
	}
	return nil
}

// krewFatal is the message of klog's fatal line in out (F… file:line] MSG),
// or all of out when it has none (the tool failed to build, say).
func krewFatal(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "] "); strings.HasPrefix(line, "F") && i > 0 {
			return line[i+2:]
		}
	}
	return strings.TrimSpace(out)
}
