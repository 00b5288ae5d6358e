package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// DoneOptions configure `tandem done`: announce "main is done" from a script.
type DoneOptions struct {
	File       string
	ExitCode   int
	Name       string
	Peers      peers.Options
	DoneSignal unix.Signal
	Log        zerolog.Logger
}

// validate rejects what cannot work, without changing anything.
func (o *DoneOptions) validate() error {
	if o.File == "" && !o.Peers.Enabled {
		return fmt.Errorf("nothing to announce: expected --%s PATH and/or --%s / --%s NAME", cmdline.FlagDoneFile, cmdline.FlagSignalPeers, cmdline.FlagPeer)
	}
	if o.ExitCode < 0 || o.ExitCode > exitcode.Max {
		return fmt.Errorf("--%s %d: expected an exit code from 0 to 255", cmdline.FlagExitCode, o.ExitCode)
	}
	if o.Peers.Enabled && o.Peers.Timeout <= 0 {
		return fmt.Errorf("--%s %s: expected a duration above 0, e.g. 30s", cmdline.FlagPeerTimeout, o.Peers.Timeout)
	}
	return nil
}

// AnnounceDone writes the done file and/or signals the sidecar peers. A
// failure is logged (a JSON line among the others, with its event), and its
// error says so.
func AnnounceDone(ctx context.Context, opts DoneOptions) error {
	if err := opts.validate(); err != nil {
		return &exitcode.Error{Code: exitcode.Usage, Err: err}
	}
	if opts.File != "" {
		f := statusfile.File{Name: opts.Name, Event: statusfile.EventDone, ExitCode: opts.ExitCode, Reason: statusfile.ReasonAnnounced}
		if err := statusfile.Write(opts.File, f); err != nil {
			event(opts.Log.Error(), cmdline.EventWriteFailed).Err(err).Str("path", opts.File).Msg("cannot write the done file")
			return &exitcode.Error{Code: exitcode.Internal, Logged: true, Err: err}
		}
		event(opts.Log.Info(), cmdline.EventDoneWritten).Str("path", opts.File).Int("exit_code", opts.ExitCode).Msg("done file written")
	}
	if !opts.Peers.Enabled {
		return nil
	}
	err := peers.Signal(ctx, peers.NewProcFinder(), opts.Peers, opts.DoneSignal, opts.Log)
	if err == nil {
		return nil
	}
	event(opts.Log.Error(), cmdline.EventPeersFailed).Err(err).Msg("sidecar peers not signaled")
	code := exitcode.Internal
	if errors.Is(err, peers.ErrNotFound) {
		code = exitcode.Timeout
	}
	return &exitcode.Error{Code: code, Logged: true, Err: err}
}
