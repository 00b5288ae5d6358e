package main

import (
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/peers"
)

// doneFlags are `tandem done`'s own, beside peerFlags. --done-file is the
// name sidecar and main use; --file, its older name, stays an alias.
func (s *settings) doneFlags() []*valueFlag {
	s.doneFile = one(cmdline.PathKind("/run/tandem/done", cmdline.PathRules{}), &s.done.File)
	doneFile := newFlag(cmdline.FlagDoneFile, s.doneFile,
		"done file to write (one JSON line, atomically); --file and $TANDEM_FILE, its older names, are still read")
	doneFile.Aliases = []string{cmdline.FlagFile}
	name := commandLevel(s.name) // the app's: given before `done` too
	name.Usage = "name recorded in the done file [$" + cmdline.EnvVar(cmdline.FlagName) + "]"
	return []*valueFlag{
		doneFile,
		newFlag(cmdline.FlagExitCode, one(cmdline.ExitCodeKind, &s.done.ExitCode), "the main's exit status to record in the file"),
		name,
	}
}

// peerFlags are shared by main and done, bound to the command's options.
func peerFlags(opts *peers.Options, doneSignal *unix.Signal) []*valueFlag {
	return []*valueFlag{
		newFlag(cmdline.FlagSignalPeers, one(cmdline.BoolKind, &opts.Enabled),
			"send the done signal to every tandem sidecar in the shared PID namespace"),
		newFlag(cmdline.FlagPeer, many(cmdline.NameKind, &opts.Names),
			"signal only the sidecar started with --name NAME (repeatable; implies --signal-peers)"),
		newFlag(cmdline.FlagPeerTimeout, one(cmdline.IntervalKind, &opts.Timeout),
			"how long to keep looking for peers that have not started yet"),
		doneSignalFlag(doneSignal),
	}
}

func doneSignalFlag(sig *unix.Signal) *valueFlag {
	return newFlag(cmdline.FlagDoneSignal, one(cmdline.DoneSignalKind, sig), "the signal that means \"main is done\" (main and sidecar must agree)")
}

// olderDoneFileEnv is the variable `tandem done` read before TANDEM_DONE_FILE:
// manifests may still set it, so it is read when TANDEM_DONE_FILE is not,
// with a warning.
const olderDoneFileEnv = "TANDEM_FILE"

// announce is `tandem done`.
func (s *settings) announce(cliCtx *cli.Context) error {
	if err := noArgs(cliCtx, "done takes flags only"); err != nil {
		return err
	}
	text, older := os.LookupEnv(olderDoneFileEnv)
	older = older && !s.doneFile.given // --done-file and TANDEM_DONE_FILE come first
	if older {
		if err := s.doneFile.Set(text); err != nil {
			return usagef("%w", refused(olderDoneFileEnv, text, err))
		}
	}
	opts := s.done
	opts.Name = s.cfg.Name
	opts.Peers.Enabled = opts.Peers.Enabled || len(opts.Peers.Names) > 0 // --peer implies --signal-peers
	opts.Log = s.logger(cmdline.CmdDone)
	if older {
		opts.Log.Warn().Str("event", cmdline.EventDeprecated).Str("variable", olderDoneFileEnv).
			Msgf("%s is deprecated: set %s instead", olderDoneFileEnv, cmdline.EnvVar(cmdline.FlagDoneFile))
	}
	return announceDone(cliCtx.Context, opts)
}
