package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// DoneOptions configure `tandem done`: announce "main is done" from a script.
type DoneOptions struct {
	File       string
	ExitCode   int
	Name       string
	Peers      PeerOptions
	DoneSignal unix.Signal
	Log        zerolog.Logger
}

// AnnounceDone writes the done file and/or signals the sidecar peers.
func AnnounceDone(ctx context.Context, opts DoneOptions) error {
	if opts.File == "" && !opts.Peers.Enabled {
		return UsageError("nothing to announce: expected --file PATH and/or --signal-peers / --peer NAME")
	}
	if opts.ExitCode < 0 || opts.ExitCode > maxExitCode {
		return UsageError("--exit-code %d: expected an exit code from 0 to 255", opts.ExitCode)
	}
	if opts.DoneSignal == 0 {
		opts.DoneSignal = unix.SIGUSR2
	}
	if opts.File != "" {
		status := StatusFile{Name: opts.Name, Event: EventDone, ExitCode: opts.ExitCode, Reason: ReasonAnnounced}
		if err := WriteStatusFile(opts.File, status); err != nil {
			return err
		}
		opts.Log.Info().Str("path", opts.File).Int("exit_code", opts.ExitCode).Msg("done file written")
	}
	if !opts.Peers.Enabled {
		return nil
	}
	finder := &procPeerFinder{procRoot: "/proc", self: os.Getpid()}
	err := signalPeers(ctx, finder, opts.Peers, opts.DoneSignal, opts.Log)
	if errors.Is(err, ErrPeerNotFound) {
		return &CodedError{Code: ExitTimeout, Err: err}
	}
	return err
}

// WaitOptions configure `tandem wait`.
type WaitOptions struct {
	Conditions []Condition
	Interval   time.Duration
	Timeout    time.Duration // 0 waits forever
	Log        zerolog.Logger
}

// WaitFor blocks until every condition holds; on timeout it names the ones
// that did not (exit 1).
func WaitFor(ctx context.Context, opts WaitOptions) error {
	if len(opts.Conditions) == 0 {
		return UsageError("nothing to wait for: expected at least one --for COND")
	}
	if opts.Interval <= 0 {
		return UsageError("--interval %s: expected a duration above 0, e.g. 250ms", opts.Interval)
	}
	if opts.Timeout < 0 {
		return UsageError("--timeout %s: expected 0 (forever) or a duration above 0", opts.Timeout)
	}
	prober := &realProber{reaper: StartReaper()}
	pending, err := waitConditions(ctx, prober, opts.Conditions, opts.Interval, opts.Timeout, opts.Log)
	if errors.Is(err, errConditionsTimeout) {
		return &CodedError{Code: ExitTimeout, Err: fmt.Errorf("timed out after %s; still not holding: %s", opts.Timeout, conditionNames(pending))}
	}
	return err
}
