package process

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestTerminalWithoutOne: with no terminal on stdin (as under go test, or in
// a container), tandem takes no part in job control and never touches a
// terminal.
func TestTerminalWithoutOne(t *testing.T) {
	if _, err := unix.IoctlGetInt(0, unix.TIOCGPGRP); err == nil {
		t.Skip("stdin is a terminal here")
	}
	if JobControl() {
		t.Error("JobControl true without a terminal")
	}
	if err := GiveTerminal(unix.Getpgrp()); err != nil {
		t.Errorf("GiveTerminal without a terminal: %v, want nil (nothing to give)", err)
	}
	if err := TakeTerminal(); err == nil {
		t.Error("TakeTerminal without a terminal succeeded")
	}
}
