package main

import (
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// mainFlags are `tandem main`'s own, beside supervisionFlags and peerFlags.
func mainFlags() []cli.Flag {
	return []cli.Flag{
		newFlag(cmdline.FlagWaitFor, many(conditionKind),
			"condition that must hold before CMD starts: "+probe.Forms+" (repeatable)"),
		newFlag(cmdline.FlagWaitTimeout, one(intervalKind, mainDefaults.Main.WaitTimeout),
			"give up waiting after this long: CMD is not started, exit 1, done file still written"),
		newFlag(cmdline.FlagWaitInterval, one(intervalKind, mainDefaults.Main.WaitInterval), "time between two rounds of probes"),
		newFlag(cmdline.FlagDoneFile, one(pathKind("/run/tandem/done", pathRules{}), ""),
			"removed at start, written (one JSON line, atomically) when CMD ends for any reason"),
		quitURLFlag("POST to this http:// URL when CMD ends, for sidecars that cannot be wrapped (repeatable)"),
		// A main only reads a needed ready file: a directory there is the
		// sidecar's problem, as for a watched done file.
		newFlag(cmdline.FlagNeeds, many(pathKind("/run/tandem/db-proxy.ready", pathRules{watched: true})),
			"a sidecar's --ready-file: wait for it, and stop CMD if that sidecar's tandem ends first (repeatable)"),
		newFlag(cmdline.FlagTerminationGrace, one(durationKind, mainDefaults.Main.TerminationGrace),
			"after the pod's SIGTERM or SIGINT, SIGKILL CMD if it has not exited within this long, so the sidecars keep the rest of the grace period (0 = off)"),
	}
}

func mainConfig(cliCtx *cli.Context) (supervisor.Config, error) {
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeMain)
	if err != nil {
		return cfg, err
	}
	m := &cfg.Main
	m.WaitFor = get[[]probe.Condition](cliCtx, cmdline.FlagWaitFor)
	m.WaitTimeout = get[time.Duration](cliCtx, cmdline.FlagWaitTimeout)
	m.WaitInterval = get[time.Duration](cliCtx, cmdline.FlagWaitInterval)
	m.DoneFile = get[string](cliCtx, cmdline.FlagDoneFile)
	m.Needs = get[[]string](cliCtx, cmdline.FlagNeeds)
	m.TerminationGrace = get[time.Duration](cliCtx, cmdline.FlagTerminationGrace)
	m.QuitURLs = get[[]probe.Target](cliCtx, cmdline.FlagQuitURL)
	m.Peers = peerOptions(cliCtx)
	m.DoneSignal = get[unix.Signal](cliCtx, cmdline.FlagDoneSignal)
	return cfg, nil
}
