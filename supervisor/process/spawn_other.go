//go:build !linux

package process

import "golang.org/x/sys/unix"

// Start always fails off Linux.
func Start([]string, Options) (*Child, error) { return nil, errNotLinux }

// Signal always fails off Linux.
func Signal(int, unix.Signal, bool) error { return errNotLinux }

// GroupAlive is false off Linux: nothing was started.
func GroupAlive(int) bool { return false }
