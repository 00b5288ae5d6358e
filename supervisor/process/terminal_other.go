//go:build !linux

package process

// JobControl is off off Linux.
func JobControl() bool { return false }

// TakeTerminal always fails off Linux.
func TakeTerminal() error { return errNotLinux }

// GiveTerminal always fails off Linux.
func GiveTerminal(int) error { return errNotLinux }

// StopSelf always fails off Linux.
func StopSelf() error { return errNotLinux }
