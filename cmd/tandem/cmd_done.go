package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// doneFlags are `tandem done`'s own, beside peerFlags.
func doneFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagFile, "", "done file to write (one JSON line, atomically)"},
		{cmdline.FlagExitCode, 0, "the main's exit status to record in the file"},
		{cmdline.FlagName, "", "name recorded in the done file"},
	}
}

func doneOptions(cliCtx *cli.Context) (supervisor.DoneOptions, error) {
	if err := noArgs(cliCtx, "done takes flags only"); err != nil {
		return supervisor.DoneOptions{}, err
	}
	log, err := newLogger(cliCtx, cmdline.CmdDone)
	if err != nil {
		return supervisor.DoneOptions{}, err
	}
	opts := supervisor.DoneOptions{
		File:     cliCtx.String(cmdline.FlagFile),
		ExitCode: cliCtx.Int(cmdline.FlagExitCode),
		Name:     flagString(cliCtx, cmdline.FlagName),
		Peers:    peerOptions(cliCtx),
		Log:      log,
	}
	opts.DoneSignal, err = signalFlag(cliCtx, cmdline.FlagDoneSignal)
	return opts, err
}
