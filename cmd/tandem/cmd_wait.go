package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

// waitCommand builds `tandem wait`.
func waitCommand() *cli.Command {
	return &cli.Command{
		Name:  "wait",
		Usage: "block until every condition holds (an init container, or a line of a script)",
		Flags: withGlobals([]cli.Flag{
			&cli.StringSliceFlag{Name: "for", EnvVars: envVars("for"),
				Usage: "file:PATH, tcp:HOST:PORT, http://HOST:PORT/PATH or exec:PROG ARG... (repeatable)"},
			&cli.DurationFlag{Name: "timeout", EnvVars: envVars("timeout"), Usage: "give up after this long, exit 1 (0 = wait forever)"},
			&cli.DurationFlag{Name: "interval", Value: supervisor.DefaultWaitInterval, EnvVars: envVars("interval"),
				Usage: "time between two rounds of probes"},
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
		return supervisor.WaitOptions{}, usagef("unexpected argument %q: give each condition with --for", cliCtx.Args().First())
	}
	log, err := newLogger(cliCtx, "wait")
	if err != nil {
		return supervisor.WaitOptions{}, err
	}
	conds, err := conditionsFlag(cliCtx, "for")
	return supervisor.WaitOptions{
		Conditions: conds,
		Interval:   cliCtx.Duration("interval"),
		Timeout:    cliCtx.Duration("timeout"),
		Log:        log,
	}, err
}
