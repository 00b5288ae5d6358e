package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// WaitOptions configure `tandem wait`.
type WaitOptions struct {
	Conditions []probe.Condition
	Interval   time.Duration
	Timeout    time.Duration // 0 waits forever
	Log        zerolog.Logger
}

// validate rejects what cannot work, without changing anything.
func (o *WaitOptions) validate() error {
	if len(o.Conditions) == 0 {
		return fmt.Errorf("nothing to wait for: expected at least one --%s COND", cmdline.FlagFor)
	}
	if o.Interval <= 0 {
		return fmt.Errorf("--%s %s: expected a duration above 0, e.g. 250ms", cmdline.FlagInterval, o.Interval)
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--%s %s: expected 0 (forever) or a duration above 0", cmdline.FlagTimeout, o.Timeout)
	}
	return nil
}

// WaitFor blocks until every condition holds; on timeout it names the ones
// that did not (exit 1). exec: probes are reaped by the process's one reaper.
func WaitFor(ctx context.Context, opts WaitOptions) error {
	if err := opts.validate(); err != nil {
		return &exitcode.Error{Code: exitcode.Usage, Err: err}
	}
	pending, err := probe.Wait(ctx, &probe.Real{}, opts.Conditions, opts.Interval, opts.Timeout, opts.Log)
	if errors.Is(err, probe.ErrTimeout) {
		return &exitcode.Error{Code: exitcode.Timeout, Logged: true, Err: timedOut(opts.Log, "wait", opts.Timeout, pending)}
	}
	return err
}

// timedOut logs the wait-timeout line, which names each condition that did
// not hold and the last reason it did not (a field per condition under
// not_holding, and the same in the message), and gives the error.
func timedOut(log zerolog.Logger, what string, timeout time.Duration, pending []probe.Pending) error {
	err := fmt.Errorf("%s timed out after %s; still not holding: %s", what, timeout, probe.Describe(pending))
	reasons := zerolog.Dict()
	for _, p := range pending {
		reasons = reasons.Str(p.String(), p.Reason)
	}
	event(log.Error(), cmdline.EventWaitTimeout).Dur("timeout_ms", timeout).Dict("not_holding", reasons).Msg(err.Error())
	return err
}
