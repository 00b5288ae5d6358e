package supervisor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
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
	path string     // file
	addr string     // tcp
	http httpTarget // http
	argv []string   // exec
}

func (c Condition) String() string { return c.raw }

const conditionHelp = "expected file:PATH, tcp:HOST:PORT, http://HOST:PORT/PATH or exec:PROGRAM ARG..."

// ParseCondition parses one COND; a bad one is a usage error.
func ParseCondition(s string) (Condition, error) {
	c := Condition{raw: s}
	kind, rest, _ := strings.Cut(s, ":")
	switch strings.ToLower(kind) {
	case "file":
		if rest == "" {
			return c, UsageError("condition %q: file: needs a path; %s", s, conditionHelp)
		}
		c.kind, c.path = condFile, rest
	case "tcp":
		host, port, err := net.SplitHostPort(rest)
		n, convErr := strconv.Atoi(port)
		if err != nil || host == "" || convErr != nil || n < 1 || n > 65535 {
			return c, UsageError("condition %q: expected tcp:HOST:PORT with a port from 1 to 65535, e.g. tcp:127.0.0.1:5432", s)
		}
		c.kind, c.addr = condTCP, rest
	case "http", "https":
		target, err := parseHTTPURL(s)
		if err != nil {
			return c, UsageError("condition %w", err)
		}
		c.kind, c.http = condHTTP, target
	case "exec":
		c.argv = strings.Fields(rest)
		if len(c.argv) == 0 {
			return c, UsageError("condition %q: exec: needs a program, e.g. exec:pg_isready -h 127.0.0.1", s)
		}
		c.kind = condExec
	default:
		return c, UsageError("condition %q: unknown kind %q; %s", s, kind, conditionHelp)
	}
	return c, nil
}

// ParseConditions parses every COND or returns the first error.
func ParseConditions(values []string) ([]Condition, error) {
	conds := make([]Condition, 0, len(values))
	for _, v := range values {
		c, err := ParseCondition(v)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return conds, nil
}

// Prober checks one condition once, within timeout.
type Prober interface {
	Probe(ctx context.Context, c Condition, timeout time.Duration) error
}

// realProber probes for real; exec: probes are started and reaped by the
// one reaper (SPEC, "Pitfalls": never os/exec's Wait).
type realProber struct {
	reaper *Reaper
}

var _ Prober = (*realProber)(nil)

func (p *realProber) Probe(ctx context.Context, c Condition, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch c.kind {
	case condFile:
		_, err := os.Stat(c.path)
		return err
	case condTCP:
		var dialer net.Dialer
		conn, err := dialer.DialContext(ctx, "tcp", c.addr)
		if err != nil {
			return err
		}
		return conn.Close()
	case condHTTP:
		code, err := httpRequest(ctx, "GET", c.http, timeout)
		if err != nil {
			return err
		}
		if code < 200 || code > 299 {
			return fmt.Errorf("HTTP status %d", code)
		}
		return nil
	case condExec:
		return p.probeExec(ctx, c.argv)
	}
	return fmt.Errorf("condition %q: unknown kind", c.raw)
}

func (p *realProber) probeExec(ctx context.Context, argv []string) error {
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	// Probe output would repeat in the container log at every try.
	fd := devNull.Fd()
	proc, err := startProcess(p.reaper, argv, spawnOptions{files: []uintptr{fd, fd, fd}})
	if err != nil {
		return err
	}
	select {
	case st := <-proc.exited:
		if st.ExitCode() != 0 {
			return fmt.Errorf("exit code %d", st.ExitCode())
		}
		return nil
	case <-ctx.Done():
		_ = signalProcess(proc.pid, killSignal, true)
		<-proc.exited // SIGKILL cannot be ignored; the reaper reports it promptly
		return fmt.Errorf("timed out: %w", ctx.Err())
	}
}

// probeTimeout is one second or the interval, whichever is longer (SPEC).
func probeTimeout(interval time.Duration) time.Duration {
	return max(time.Second, interval)
}

// errConditionsTimeout is returned with the conditions that never held.
var errConditionsTimeout = errors.New("timed out")

// waitConditions probes every interval until each condition has held, the
// timeout (0 = none) passes, or ctx ends. It returns what still did not hold.
func waitConditions(ctx context.Context, prober Prober, conds []Condition, interval, timeout time.Duration, log zerolog.Logger) ([]Condition, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	pending := append([]Condition(nil), conds...)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		still := pending[:0:0]
		for _, c := range pending {
			if err := prober.Probe(ctx, c, probeTimeout(interval)); err != nil {
				log.Debug().Str("condition", c.raw).Err(err).Msg("condition does not hold yet")
				still = append(still, c)
				continue
			}
			log.Info().Str("condition", c.raw).Msg("condition holds")
		}
		pending = still
		if len(pending) == 0 {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return pending, errConditionsTimeout
			}
			return pending, ctx.Err()
		case <-ticker.C:
		}
	}
}

// conditionNames joins conditions for a log line or error.
func conditionNames(conds []Condition) string {
	names := make([]string, len(conds))
	for i, c := range conds {
		names[i] = c.raw
	}
	return strings.Join(names, ", ")
}
