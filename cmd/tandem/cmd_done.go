package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// doneFlags are `tandem done`'s own, beside peerFlags. --done-file is the
// name sidecar and main use; --file, its older name, stays an alias.
func doneFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagDoneFile, "", "done file to write (one JSON line, atomically); --file and $TANDEM_FILE, its older names, are still read"},
		{cmdline.FlagExitCode, 0, "the main's exit status to record in the file"},
		{cmdline.FlagName, "", "name recorded in the done file"},
	}
}

// olderDoneFileEnv is the variable `tandem done` read before TANDEM_DONE_FILE:
// manifests may still set it, so it is read when TANDEM_DONE_FILE is not,
// with a warning.
const olderDoneFileEnv = "TANDEM_FILE"

func doneOptions(cliCtx *cli.Context) (supervisor.DoneOptions, error) {
	if err := noArgs(cliCtx, "done takes flags only"); err != nil {
		return supervisor.DoneOptions{}, err
	}
	in := newInput(cliCtx)
	in.olderEnv = map[string]string{cmdline.FlagDoneFile: olderDoneFileEnv}
	opts := supervisor.DoneOptions{
		File:       in.str(cmdline.FlagDoneFile),
		ExitCode:   in.integer(cmdline.FlagExitCode),
		Name:       in.str(cmdline.FlagName),
		Peers:      peerOptions(in),
		DoneSignal: in.signal(cmdline.FlagDoneSignal),
	}
	if in.err != nil {
		return opts, in.err
	}
	var err error
	if opts.Log, err = newLogger(in, cmdline.CmdDone); err != nil {
		return opts, err
	}
	for _, env := range in.deprecated {
		opts.Log.Warn().Str("event", cmdline.EventDeprecated).Str("variable", env).
			Msgf("%s is deprecated: set %s instead", env, cmdline.EnvVar(cmdline.FlagDoneFile))
	}
	return opts, nil
}
