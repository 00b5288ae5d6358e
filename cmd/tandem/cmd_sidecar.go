package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// sidecarFlags are `tandem sidecar`'s own, beside supervisionFlags.
func sidecarFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagDoneFile, list, "stop CMD once every listed file exists (repeatable)"},
		doneSignalFlag(),
		{cmdline.FlagStopWhen, cmdline.StopWhenAny,
			"any, or success: ignore a done file that reports a failed main until it is replaced"},
		quitURLFlag("on done, POST to this http:// URL before the stop signal (repeatable)"),
		{cmdline.FlagTerminationSignal, signalFlagValue(sidecarDefaults.Sidecar.TerminationSignal),
			"the signal the runtime sends this container on pod deletion (the image's STOPSIGNAL, or lifecycle.stopSignal)"},
		{cmdline.FlagOutliveMain, noTime,
			"hold the termination signal until the main is done or this long has passed (0 = off)"},
		{cmdline.FlagReadyWhen, list,
			"condition for readiness: " + probe.Forms + " (repeatable)"},
		{cmdline.FlagReadyFile, "", "file written once CMD started and every --ready-when holds; removed when CMD stops"},
		{cmdline.FlagRestart, "never", "never, on-failure or always: restart CMD when it exits before the main is done"},
		{cmdline.FlagPollInterval, sidecarDefaults.Sidecar.PollInterval,
			"safety-net stat of the done files beside the inotify watch"},
		{cmdline.FlagStopDelay, noTime,
			"after the main is done, wait this long before stopping CMD, so a shipper can drain (0 = off)"},
		{cmdline.FlagStoppedFile, "",
			"file written once CMD exited after a requested stop: another sidecar's --done-file, for shutdown order"},
		{cmdline.FlagMainStartTimeout, noTime,
			"stop as if done when no main attached and nothing was done within this long (0 = off)"},
	}
}

func sidecarConfig(cliCtx *cli.Context) (supervisor.Config, error) {
	in := newInput(cliCtx)
	cfg, err := supervisionConfig(in, supervisor.ModeSidecar)
	if err != nil {
		return cfg, err
	}
	sc := &cfg.Sidecar
	sc.DoneFiles = in.strs(cmdline.FlagDoneFile)
	sc.DoneSignal = in.signal(cmdline.FlagDoneSignal)
	sc.TerminationSignal = in.signal(cmdline.FlagTerminationSignal)
	if in.str(cmdline.FlagStopWhen) == cmdline.StopWhenSuccess {
		sc.StopWhen = supervisor.StopWhenSuccess
	}
	sc.QuitURLs = in.urls(cmdline.FlagQuitURL)
	sc.OutliveMain = in.duration(cmdline.FlagOutliveMain)
	sc.ReadyWhen = in.conditions(cmdline.FlagReadyWhen)
	sc.ReadyFile = in.str(cmdline.FlagReadyFile)
	sc.Restart = restartPolicy(in.str(cmdline.FlagRestart))
	sc.PollInterval = in.duration(cmdline.FlagPollInterval)
	sc.StopDelay = in.duration(cmdline.FlagStopDelay)
	sc.StoppedFile = in.str(cmdline.FlagStoppedFile)
	sc.MainStartTimeout = in.duration(cmdline.FlagMainStartTimeout)
	if in.err != nil {
		return cfg, in.err
	}
	return cfg, ownFilesApart(sc)
}

// restartPolicy is --restart's value, which its kind has checked.
func restartPolicy(text string) supervisor.RestartPolicy {
	p, _ := supervisor.ParseRestart(text)
	return p
}

// ownFilesApart: a file the sidecar writes must not be one it waits for
// (it would see itself done), nor its other file.
func ownFilesApart(sc *supervisor.SidecarConfig) error {
	for _, own := range []struct{ flag, path, example string }{
		{cmdline.FlagReadyFile, sc.ReadyFile, "/run/tandem/proxy.ready"},
		{cmdline.FlagStoppedFile, sc.StoppedFile, "/run/tandem/proxy.stopped"},
	} {
		for _, done := range sc.DoneFiles {
			if own.path != "" && samePath(own.path, done) {
				return usagef("--%s %q is also a --%s: the sidecar would wait for its own file; expected another path such as %s",
					own.flag, own.path, cmdline.FlagDoneFile, own.example)
			}
		}
	}
	if sc.ReadyFile != "" && sc.StoppedFile != "" && samePath(sc.ReadyFile, sc.StoppedFile) {
		return usagef("--%s %q is also the --%s; expected two paths such as /run/tandem/proxy.ready and /run/tandem/proxy.stopped",
			cmdline.FlagStoppedFile, sc.StoppedFile, cmdline.FlagReadyFile)
	}
	return nil
}
