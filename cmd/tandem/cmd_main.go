package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

var mainDefaults = supervisor.Defaults(supervisor.ModeMain)

// mainCommand builds `tandem main`.
func mainCommand() *cli.Command {
	return &cli.Command{
		Name:      cmdline.CmdMain,
		Usage:     "wait for conditions, run CMD, and when it ends for any reason tell the sidecars",
		ArgsUsage: "-- CMD [ARG...]",
		Flags: withGlobals(supervisionFlags(mainDefaults), peerFlags(), []cli.Flag{
			named(cmdline.FlagWaitFor, &cli.StringSliceFlag{
				Usage: "condition that must hold before CMD starts: file:PATH, tcp:HOST:PORT, http://..., exec:PROG ARG... (repeatable)"}),
			named(cmdline.FlagWaitTimeout, &cli.DurationFlag{Value: mainDefaults.Main.WaitTimeout,
				Usage: "give up waiting after this long: CMD is not started, exit 1, done file still written"}),
			named(cmdline.FlagWaitInterval, &cli.DurationFlag{Value: mainDefaults.Main.WaitInterval,
				Usage: "time between two rounds of probes"}),
			named(cmdline.FlagDoneFile, &cli.StringFlag{
				Usage: "removed at start, written (one JSON line, atomically) when CMD ends for any reason"}),
			quitURLFlag("POST to this http:// URL when CMD ends, for sidecars that cannot be wrapped (repeatable)"),
		}),
		Action: mainAction,
	}
}

func mainAction(cliCtx *cli.Context) error {
	cfg, err := mainConfig(cliCtx)
	if err != nil {
		return err
	}
	return runSupervisor(cliCtx.Context, cfg)
}

func mainConfig(cliCtx *cli.Context) (supervisor.Config, error) {
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeMain)
	if err != nil {
		return cfg, err
	}
	m := &cfg.Main
	if m.WaitFor, err = conditionsFlag(cliCtx, cmdline.FlagWaitFor); err != nil {
		return cfg, err
	}
	m.WaitTimeout = cliCtx.Duration(cmdline.FlagWaitTimeout)
	m.WaitInterval = cliCtx.Duration(cmdline.FlagWaitInterval)
	m.DoneFile = cliCtx.String(cmdline.FlagDoneFile)
	if m.QuitURLs, err = quitURLs(cliCtx); err != nil {
		return cfg, err
	}
	m.Peers = peerOptions(cliCtx)
	if m.DoneSignal, err = signalFlag(cliCtx, cmdline.FlagDoneSignal); err != nil {
		return cfg, err
	}
	return cfg, nil
}
