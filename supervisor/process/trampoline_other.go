//go:build !linux

package process

// ExecUnblocked always fails off Linux.
func ExecUnblocked(string, []string) int { return 125 }
