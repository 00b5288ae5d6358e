package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

func (s *settings) waitFlags() []*valueFlag {
	w := &s.wait
	return []*valueFlag{
		newFlag(cmdline.FlagFor, many(conditionKind, &w.Conditions), probe.Forms+" (repeatable)"),
		newFlag(cmdline.FlagTimeout, one(cmdline.DurationKind, &w.Timeout), "give up after this long, exit 1 (0 = wait forever)"),
		newFlag(cmdline.FlagInterval, one(cmdline.IntervalKind, &w.Interval), "time between two rounds of probes"),
	}
}

// await is `tandem wait`.
func (s *settings) await(cliCtx *cli.Context) error {
	if err := noArgs(cliCtx, "give each condition with --"+cmdline.FlagFor); err != nil {
		return err
	}
	opts := s.wait
	opts.Log = s.logger(cmdline.CmdWait)
	return waitFor(cliCtx.Context, opts)
}
