package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

var doneCommand = &cli.Command{
	Name:         "done",
	Usage:        "announce that the main work is done: write a done file and/or signal sidecar peers",
	OnUsageError: usageError,
	Flags: withGlobals(peerFlags(), []cli.Flag{
		&cli.StringFlag{Name: "file", EnvVars: envVars("file"), Usage: "done file to write (one JSON line, atomically)"},
		&cli.IntFlag{Name: "exit-code", EnvVars: envVars("exit-code"), Usage: "the main's exit status to record in the file"},
		&cli.StringFlag{Name: "name", EnvVars: envVars("name"), Usage: "name recorded in the done file"},
	}),
	Action: doneAction,
}

func doneAction(cliCtx *cli.Context) error {
	if cliCtx.NArg() > 0 {
		return usagef("unexpected argument %q: done takes flags only", cliCtx.Args().First())
	}
	log, err := newLogger(cliCtx, "done")
	if err != nil {
		return err
	}
	opts := supervisor.DoneOptions{
		File:     cliCtx.String("file"),
		ExitCode: cliCtx.Int("exit-code"),
		Name:     cliCtx.String("name"),
		Log:      log,
	}
	if opts.Peers, err = peerOptions(cliCtx); err != nil {
		return err
	}
	if opts.DoneSignal, err = signalFlag(cliCtx, "done-signal"); err != nil {
		return err
	}
	return supervisor.AnnounceDone(cliCtx.Context, opts)
}
