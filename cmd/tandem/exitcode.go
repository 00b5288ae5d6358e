package main

import (
	"errors"

	"github.com/tandem-sh/tandem/supervisor"
)

// exitStatus ends a run that the supervisor has already logged: CMD's own
// code, 128+N, or a failure that its last log line explains. main() exits
// with the code and prints nothing more.
type exitStatus int

func (e exitStatus) Error() string { return "exit status" }

func isExitCodeOnly(err error) bool {
	var status exitStatus
	return errors.As(err, &status)
}

// exitCode is the one place where an error becomes tandem's exit code.
func exitCode(err error) int {
	var status exitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	return supervisor.ExitCodeOf(err)
}

// result turns (code, err) from supervisor.Run into the action's error.
// Usage errors are found before anything is logged, so they are printed.
func result(code int, err error) error {
	if err != nil && code == supervisor.ExitUsage {
		return err
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}

func usagef(format string, args ...any) error {
	return supervisor.UsageError(format, args...)
}
