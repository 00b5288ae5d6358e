package kit

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Runner runs one command of the tool a suite plays pods with: podman, or
// kubectl in a test's namespace. stdin may be nil.
type Runner interface {
	Run(ctx context.Context, stdin []byte, args ...string) (stdout, stderr string, err error)
}

// Tool is the Runner of a binary; Args come before every command's own
// (kubectl's --namespace).
type Tool struct {
	Bin  string
	Args []string
}

var _ Runner = Tool{}

// Run runs the binary; the error names the command and carries its stderr.
func (tool Tool) Run(ctx context.Context, stdin []byte, args ...string) (stdout, stderr string, err error) {
	args = append(append([]string{}, tool.Args...), args...)
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, tool.Bin, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), errOut.String(), fmt.Errorf("%s %s: %w: %s",
			filepath.Base(tool.Bin), strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), errOut.String(), nil
}

// ContainerLogs runs a logs command (with --timestamps) and reads what it
// printed as ctr's lines: podman writes the container's stderr to its own,
// kubectl both streams to its stdout.
func ContainerLogs(ctx context.Context, r Runner, ctr string, args ...string) ([]Line, error) {
	stdout, stderr, err := r.Run(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	return append(ParseLogs(ctr, stdout), ParseLogs(ctr, stderr)...), nil
}
