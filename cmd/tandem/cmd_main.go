package main

import (
	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// mainFlags are `tandem main`'s own, beside run's and peerFlags.
func (s *settings) mainFlags() []*valueFlag {
	m := &s.cfg.Main
	return []*valueFlag{
		newFlag(cmdline.FlagWaitFor, many(conditionKind, &m.WaitFor),
			"condition that must hold before CMD starts: "+probe.Forms+" (repeatable)"),
		newFlag(cmdline.FlagWaitTimeout, one(cmdline.IntervalKind, &m.WaitTimeout),
			"give up waiting after this long: CMD is not started, exit 1, done file still written"),
		newFlag(cmdline.FlagWaitInterval, one(cmdline.IntervalKind, &m.WaitInterval), "time between two rounds of probes"),
		newFlag(cmdline.FlagDoneFile, one(cmdline.PathKind("/run/tandem/done", cmdline.PathRules{}), &m.DoneFile),
			"removed at start, written (one JSON line, atomically) when CMD ends for any reason"),
		newFlag(cmdline.FlagQuitURL, many(urlKind, &m.QuitURLs),
			"POST to this http:// URL when CMD ends, for sidecars that cannot be wrapped (repeatable)"),
		// A main only reads a needed ready file: a directory there is the
		// sidecar's problem, as for a watched done file.
		newFlag(cmdline.FlagNeeds, many(cmdline.PathKind("/run/tandem/db-proxy.ready", cmdline.PathRules{Watched: true}), &m.Needs),
			"a sidecar's --ready-file: wait for it, and stop CMD if that sidecar's tandem ends first (repeatable)"),
		newFlag(cmdline.FlagTerminationGrace, one(cmdline.DurationKind, &m.TerminationGrace),
			"after the pod's stop signal, SIGKILL CMD if it has not exited within this long, so the sidecars keep the rest of the grace period (0 = off)"),
		anyStopSignal(newFlag(cmdline.FlagTerminationSignal, one(cmdline.CatchableSignalKind, &m.TerminationSignal),
			"the signal the runtime stops this container with (its STOPSIGNAL), which starts --termination-grace")),
	}
}

// anyStopSignal: a main not told its termination signal takes each of the
// stock images' STOPSIGNALs for it.
func anyStopSignal(f *valueFlag) *valueFlag {
	f.DefaultText = "TERM, INT or QUIT"
	return f
}
