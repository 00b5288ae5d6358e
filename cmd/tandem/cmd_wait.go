package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

func waitFlags() []cli.Flag {
	return []cli.Flag{
		newFlag(cmdline.FlagFor, many(conditionKind), probe.Forms+" (repeatable)"),
		newFlag(cmdline.FlagTimeout, one(durationKind, 0), "give up after this long, exit 1 (0 = wait forever)"),
		newFlag(cmdline.FlagInterval, one(intervalKind, supervisor.DefaultWaitInterval), "time between two rounds of probes"),
	}
}

func waitOptions(cliCtx *cli.Context) (supervisor.WaitOptions, error) {
	if err := noArgs(cliCtx, "give each condition with --"+cmdline.FlagFor); err != nil {
		return supervisor.WaitOptions{}, err
	}
	return supervisor.WaitOptions{
		Conditions: get[[]probe.Condition](cliCtx, cmdline.FlagFor),
		Interval:   get[time.Duration](cliCtx, cmdline.FlagInterval),
		Timeout:    get[time.Duration](cliCtx, cmdline.FlagTimeout),
		Log:        newLogger(cliCtx, cmdline.CmdWait),
	}, nil
}
