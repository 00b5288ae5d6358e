package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal: a character device is not enough (/dev/null is one).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
