package main

import "errors"

// tandemctl's exit codes, as docs/inject.md and docs/webhook.md list them.
const (
	exitOK = 0
	// exitNotInjected: some resource could not be injected, the others
	// were written; or check found something wrong.
	exitNotInjected = 1
	// exitUsage: a usage error or input that does not parse; nothing was
	// written.
	exitUsage = 2
)

// usageError is a bad flag, value or input: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// reportedError ends a run whose report lines already said what failed.
type reportedError struct{ failed int }

func (e reportedError) Error() string { return "the report says what failed" }

func isReported(err error) bool {
	var r reportedError
	return errors.As(err, &r)
}

// exitCode is the one place where an error becomes the exit code.
func exitCode(err error) int {
	var usage usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case isReported(err):
		return exitNotInjected
	}
	// Anything else (stdout closed, say) happened before or while writing.
	return exitNotInjected
}
