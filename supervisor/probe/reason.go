package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/process"
)

// Pending is a condition that has not held, and the reason it did not the
// last time it was probed.
type Pending struct {
	Condition
	Reason string
}

// Unmet is a pending wait that is not a COND (a needed sidecar's ready
// file), so a timeout names it beside the conditions.
func Unmet(name, reason string) Pending {
	return Pending{Condition: Condition{raw: name}, Reason: reason}
}

// StatusError is an http:// condition answered with a status outside 2xx.
type StatusError struct{ Code int }

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d", e.Code) }

// ExitError is an exec: condition's program that exited non-zero.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Reason is the short word for why a probe failed, as a user reads it and
// as "each kind of failure" is told apart: "connection refused", "no such
// file or directory", "HTTP 503", "exit status 1", "timed out".
func Reason(err error) string {
	var (
		status *StatusError
		exit   *ExitError
		start  *process.StartError
		dns    *net.DNSError
		errno  unix.Errno
	)
	switch {
	case errors.As(err, &status):
		return status.Error()
	case errors.As(err, &exit):
		return exit.Error()
	case errors.As(err, &start):
		return start.Error() // which program could not start, and why
	case errors.As(err, &dns):
		return dns.Err
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return "timed out"
	case errors.As(err, &errno):
		return errno.Error()
	}
	return err.Error()
}

// Describe joins pending conditions with their reasons for a log line or
// error: `tcp:127.0.0.1:5432 (connection refused), file:/x (no such file or
// directory)`.
func Describe(pending []Pending) string {
	parts := make([]string, len(pending))
	for i, p := range pending {
		parts[i] = p.raw + " (" + p.Reason + ")"
	}
	return strings.Join(parts, ", ")
}
