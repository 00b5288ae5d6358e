package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

var mainCommand = &cli.Command{
	Name:         "main",
	Usage:        "wait for conditions, run CMD, and when it ends for any reason tell the sidecars",
	ArgsUsage:    "-- CMD [ARG...]",
	OnUsageError: usageError,
	Flags: withGlobals(supervisionFlags(), peerFlags(), []cli.Flag{
		&cli.StringSliceFlag{Name: "wait-for", EnvVars: envVars("wait-for"),
			Usage: "condition that must hold before CMD starts: file:PATH, tcp:HOST:PORT, http://..., exec:PROG ARG... (repeatable)"},
		&cli.DurationFlag{Name: "wait-timeout", Value: supervisor.DefaultWaitTimeout, EnvVars: envVars("wait-timeout"),
			Usage: "give up waiting after this long: CMD is not started, exit 1, done file still written"},
		&cli.DurationFlag{Name: "wait-interval", Value: supervisor.DefaultWaitInterval, EnvVars: envVars("wait-interval"),
			Usage: "time between two rounds of probes"},
		&cli.StringFlag{Name: "done-file", EnvVars: envVars("done-file"),
			Usage: "removed at start, written (one JSON line, atomically) when CMD ends for any reason"},
		quitURLFlag("POST to this http:// URL when CMD ends, for sidecars that cannot be wrapped (repeatable)"),
	}),
	Action: mainAction,
}

func mainAction(cliCtx *cli.Context) error {
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeMain)
	if err != nil {
		return err
	}
	if cfg.WaitFor, err = conditionsFlag(cliCtx, "wait-for"); err != nil {
		return err
	}
	cfg.WaitTimeout = cliCtx.Duration("wait-timeout")
	cfg.WaitInterval = cliCtx.Duration("wait-interval")
	if path := cliCtx.String("done-file"); path != "" {
		cfg.DoneFiles = []string{path}
	}
	cfg.QuitURLs = cliCtx.StringSlice("quit-url")
	if cfg.Peers, err = peerOptions(cliCtx); err != nil {
		return err
	}
	if cfg.DoneSignal, err = signalFlag(cliCtx, "done-signal"); err != nil {
		return err
	}
	return result(supervisor.Run(cliCtx.Context, cfg))
}
