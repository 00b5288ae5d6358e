//go:build !linux

package main

import "os"

// isTerminal off Linux: tandem only supervises on Linux, so JSON logs do.
func isTerminal(*os.File) bool { return false }
