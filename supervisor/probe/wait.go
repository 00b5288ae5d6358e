package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/process"
)

// Prober checks one condition once, within timeout.
type Prober interface {
	Probe(ctx context.Context, c Condition, timeout time.Duration) error
}

// Real probes for real; exec: probes are started and reaped by the
// one reaper (never os/exec's Wait, which would race the reaper for the status).
type Real struct{}

var _ Prober = (*Real)(nil)

func (p *Real) Probe(ctx context.Context, c Condition, timeout time.Duration) error {
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
		code, err := Request(ctx, "GET", c.http, timeout)
		if err != nil {
			return err
		}
		if code < 200 || code > 299 {
			return &StatusError{Code: code}
		}
		return nil
	case condExec:
		return p.probeExec(ctx, c.argv)
	}
	return fmt.Errorf("condition %q: unknown kind", c.raw)
}

func (p *Real) probeExec(ctx context.Context, argv []string) error {
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	// Probe output would repeat in the container log at every try.
	fd := devNull.Fd()
	proc, err := process.Start(argv, process.Options{Files: []uintptr{fd, fd, fd}})
	if err != nil {
		return err
	}
	select {
	case st := <-proc.Exited:
		if st.ExitCode() != 0 {
			return &ExitError{Code: st.ExitCode()}
		}
		return nil
	case <-ctx.Done():
		_ = process.Signal(proc.Pid, unix.SIGKILL, true)
		<-proc.Exited // SIGKILL cannot be ignored; the reaper reports it promptly
		return fmt.Errorf("timed out: %w", ctx.Err())
	}
}

// tryTimeout is one second or the interval, whichever is longer: a slow
// answer within an interval still counts.
func tryTimeout(interval time.Duration) time.Duration {
	return max(time.Second, interval)
}

// ErrTimeout is returned with the conditions that never held.
var ErrTimeout = errors.New("timed out")

// Wait probes every interval until each condition has held, the timeout
// (0 = none) passes, or ctx ends. It returns what still did not hold, with
// the last reason.
func Wait(ctx context.Context, prober Prober, conds []Condition, interval, timeout time.Duration, log zerolog.Logger) ([]Pending, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	pending := make([]Pending, len(conds))
	for i, c := range conds {
		pending[i] = Pending{Condition: c}
	}
	r := round{prober: prober, try: tryTimeout(interval), log: log, told: map[string]bool{}}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		if pending = r.probe(ctx, pending); len(pending) == 0 {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return pending, ErrTimeout
			}
			return pending, ctx.Err()
		case <-ticker.C:
		}
	}
}

// round probes the pending conditions once per interval.
type round struct {
	prober Prober
	try    time.Duration
	log    zerolog.Logger
	told   map[string]bool // a condition and a reason already logged at info
}

// probe tries each pending condition once and returns those that still do
// not hold. The first failure of each kind for a condition is logged at
// info (what a user waiting needs to see), the next ones at debug.
func (r round) probe(ctx context.Context, pending []Pending) []Pending {
	still := pending[:0:0]
	for _, p := range pending {
		err := r.prober.Probe(ctx, p.Condition, r.try)
		if err == nil {
			r.log.Info().Str("event", cmdline.EventConditionHolds).Str("condition", p.raw).Msg("condition holds")
			continue
		}
		if ended(ctx) && p.Reason != "" {
			// Cut short by the end of the whole wait: the reason from the
			// last full try says more than "timed out".
			still = append(still, p)
			continue
		}
		p.Reason = Reason(err)
		level, key := zerolog.DebugLevel, p.raw+"\x00"+p.Reason
		if !r.told[key] {
			r.told[key], level = true, zerolog.InfoLevel
		}
		r.log.WithLevel(level).Str("event", cmdline.EventConditionNotHolds).Str("condition", p.raw).Str("reason", p.Reason).
			Err(err).Msg("condition does not hold yet")
		still = append(still, p)
	}
	return still
}

// ended: ctx is done or its deadline has passed. A dial that fails at the
// deadline can return before ctx's own timer has marked it done.
func ended(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	return ctx.Err() != nil || (ok && !time.Now().Before(deadline))
}
