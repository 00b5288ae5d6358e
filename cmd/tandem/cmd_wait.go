package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// waitCommand builds `tandem wait`.
func waitCommand() *cli.Command {
	return &cli.Command{
		Name:  cmdline.CmdWait,
		Usage: "block until every condition holds (an init container, or a line of a script)",
		Flags: withGlobals([]cli.Flag{
			named(cmdline.FlagFor, &cli.StringSliceFlag{
				Usage: "file:PATH, tcp:HOST:PORT, http://HOST:PORT/PATH or exec:PROG ARG... (repeatable)"}),
			named(cmdline.FlagTimeout, &cli.DurationFlag{Usage: "give up after this long, exit 1 (0 = wait forever)"}),
			named(cmdline.FlagInterval, &cli.DurationFlag{Value: supervisor.DefaultWaitInterval,
				Usage: "time between two rounds of probes"}),
		}),
		Action: waitAction,
	}
}

func waitAction(cliCtx *cli.Context) error {
	opts, err := waitOptions(cliCtx)
	if err != nil {
		return err
	}
	return waitFor(cliCtx.Context, opts)
}

func waitOptions(cliCtx *cli.Context) (supervisor.WaitOptions, error) {
	if cliCtx.NArg() > 0 {
		return supervisor.WaitOptions{}, usagef("unexpected argument %q: give each condition with --%s", cliCtx.Args().First(), cmdline.FlagFor)
	}
	log, err := newLogger(cliCtx, cmdline.CmdWait)
	if err != nil {
		return supervisor.WaitOptions{}, err
	}
	conds, err := conditionsFlag(cliCtx, cmdline.FlagFor)
	return supervisor.WaitOptions{
		Conditions: conds,
		Interval:   cliCtx.Duration(cmdline.FlagInterval),
		Timeout:    cliCtx.Duration(cmdline.FlagTimeout),
		Log:        log,
	}, err
}
