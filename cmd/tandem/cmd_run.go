package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// runCommand builds `tandem run`.
func runCommand() *cli.Command {
	return &cli.Command{
		Name:      cmdline.CmdRun,
		Usage:     "supervise CMD as PID 1: forward signals, reap every child, exit as CMD exits",
		ArgsUsage: "-- CMD [ARG...]",
		Flags:     withGlobals(supervisionFlags(supervisor.Defaults(supervisor.ModeRun))),
		Action:    runAction,
	}
}

func runAction(cliCtx *cli.Context) error {
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeRun)
	if err != nil {
		return err
	}
	return runSupervisor(cliCtx.Context, cfg)
}
