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
	in := newInput(cliCtx)
	opts := supervisor.WaitOptions{
		Conditions: in.conditions(cmdline.FlagFor),
		Interval:   in.duration(cmdline.FlagInterval),
		Timeout:    in.duration(cmdline.FlagTimeout),
	}
	if in.err != nil {
		return opts, in.err
	}
	var err error
	opts.Log, err = newLogger(in, cmdline.CmdWait)
	return opts, err
}
