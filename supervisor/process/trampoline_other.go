//go:build !linux

package process

import "github.com/tandem-sh/tandem/internal/exitcode"

// ExecUnblocked always fails off Linux.
func ExecUnblocked(string, []string) int { return exitcode.Internal }
