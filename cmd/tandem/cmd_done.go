package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// doneCommand builds `tandem done`.
func doneCommand() *cli.Command {
	return &cli.Command{
		Name:  cmdline.CmdDone,
		Usage: "announce that the main work is done: write a done file and/or signal sidecar peers",
		Flags: withGlobals(peerFlags(), []cli.Flag{
			named(cmdline.FlagFile, &cli.StringFlag{Usage: "done file to write (one JSON line, atomically)"}),
			named(cmdline.FlagExitCode, &cli.IntFlag{Usage: "the main's exit status to record in the file"}),
			named(cmdline.FlagName, &cli.StringFlag{Usage: "name recorded in the done file"}),
		}),
		Action: doneAction,
	}
}

func doneAction(cliCtx *cli.Context) error {
	opts, err := doneOptions(cliCtx)
	if err != nil {
		return err
	}
	return announceDone(cliCtx.Context, opts)
}

func doneOptions(cliCtx *cli.Context) (supervisor.DoneOptions, error) {
	if cliCtx.NArg() > 0 {
		return supervisor.DoneOptions{}, usagef("unexpected argument %q: done takes flags only", cliCtx.Args().First())
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
