package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// mainFlags are `tandem main`'s own, beside supervisionFlags and peerFlags.
func mainFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagWaitFor, list,
			"condition that must hold before CMD starts: " + probe.Forms + " (repeatable)"},
		{cmdline.FlagWaitTimeout, mainDefaults.Main.WaitTimeout,
			"give up waiting after this long: CMD is not started, exit 1, done file still written"},
		{cmdline.FlagWaitInterval, mainDefaults.Main.WaitInterval, "time between two rounds of probes"},
		{cmdline.FlagDoneFile, "", "removed at start, written (one JSON line, atomically) when CMD ends for any reason"},
		quitURLFlag("POST to this http:// URL when CMD ends, for sidecars that cannot be wrapped (repeatable)"),
		{cmdline.FlagNeeds, list, "a sidecar's --ready-file: wait for it, and stop CMD if that sidecar's tandem ends first (repeatable)"},
	}
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
	m.Needs = cliCtx.StringSlice(cmdline.FlagNeeds)
	if m.QuitURLs, err = quitURLs(cliCtx); err != nil {
		return cfg, err
	}
	m.Peers = peerOptions(cliCtx)
	if m.DoneSignal, err = signalFlag(cliCtx, cmdline.FlagDoneSignal); err != nil {
		return cfg, err
	}
	return cfg, nil
}
