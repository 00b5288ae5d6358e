// Package probe parses and probes conditions (file:, tcp:, http://, exec:)
// and holds the small HTTP/1.1 client that quit URLs use too.
package probe

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

type conditionKind int

const (
	condFile conditionKind = iota
	condTCP
	condHTTP
	condExec
)

// Condition is one parsed COND: file:PATH, tcp:HOST:PORT, http://…, exec:PROG ARG….
type Condition struct {
	raw  string
	kind conditionKind
	path string   // file
	addr string   // tcp
	http Target   // http
	argv []string // exec
}

func (c Condition) String() string { return c.raw }

// Forms lists every kind of condition, as the commands' help and the
// errors name them: a new kind is added here and in Parse and Probe only.
const Forms = "file:PATH, tcp:HOST:PORT, http://HOST:PORT/PATH or exec:PROGRAM ARG..."

const conditionHelp = "expected " + Forms

// Parse parses one COND; the error names the value and what is accepted.
func Parse(s string) (Condition, error) {
	c := Condition{raw: s}
	kind, rest, _ := strings.Cut(s, ":")
	switch strings.ToLower(kind) {
	case "file":
		if rest == "" {
			return c, fmt.Errorf("condition %q: file: needs a path; %s", s, conditionHelp)
		}
		c.kind, c.path = condFile, rest
	case "tcp":
		host, port, err := net.SplitHostPort(rest)
		n, convErr := strconv.Atoi(port)
		if err != nil || host == "" || convErr != nil || n < 1 || n > 65535 {
			return c, fmt.Errorf("condition %q: expected tcp:HOST:PORT with a port from 1 to 65535, e.g. tcp:127.0.0.1:5432", s)
		}
		c.kind, c.addr = condTCP, rest
	case "http", "https":
		target, err := ParseURL(s)
		if err != nil {
			return c, fmt.Errorf("condition %w", err)
		}
		c.kind, c.http = condHTTP, target
	case "exec":
		c.argv = strings.Fields(rest)
		if len(c.argv) == 0 {
			return c, fmt.Errorf("condition %q: exec: needs a program, e.g. exec:pg_isready -h 127.0.0.1", s)
		}
		c.kind = condExec
	default:
		return c, fmt.Errorf("condition %q: unknown kind %q; %s", s, kind, conditionHelp)
	}
	return c, nil
}

// Names joins conditions for a log line or error.
func Names(conds []Condition) string {
	names := make([]string, len(conds))
	for i, c := range conds {
		names[i] = c.raw
	}
	return strings.Join(names, ", ")
}
