package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

// doneCommand builds `tandem done`.
func doneCommand() *cli.Command {
	return &cli.Command{
		Name:  "done",
		Usage: "announce that the main work is done: write a done file and/or signal sidecar peers",
		Flags: withGlobals(peerFlags(), []cli.Flag{
			&cli.StringFlag{Name: "file", EnvVars: envVars("file"), Usage: "done file to write (one JSON line, atomically)"},
			&cli.IntFlag{Name: "exit-code", EnvVars: envVars("exit-code"), Usage: "the main's exit status to record in the file"},
			&cli.StringFlag{Name: "name", EnvVars: envVars("name"), Usage: "name recorded in the done file"},
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
	log, err := newLogger(cliCtx, "done")
	if err != nil {
		return supervisor.DoneOptions{}, err
	}
	opts := supervisor.DoneOptions{
		File:     cliCtx.String("file"),
		ExitCode: cliCtx.Int("exit-code"),
		Name:     flagString(cliCtx, "name"),
		Peers:    peerOptions(cliCtx),
		Log:      log,
	}
	opts.DoneSignal, err = signalFlag(cliCtx, "done-signal")
	return opts, err
}
