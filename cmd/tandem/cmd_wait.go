package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

func waitFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagFor, list, probe.Forms + " (repeatable)"},
		{cmdline.FlagTimeout, noTime, "give up after this long, exit 1 (0 = wait forever)"},
		{cmdline.FlagInterval, supervisor.DefaultWaitInterval, "time between two rounds of probes"},
	}
}

func waitOptions(cliCtx *cli.Context) (supervisor.WaitOptions, error) {
	if err := noArgs(cliCtx, "give each condition with --"+cmdline.FlagFor); err != nil {
		return supervisor.WaitOptions{}, err
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
