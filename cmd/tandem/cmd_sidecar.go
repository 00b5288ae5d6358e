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
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeSidecar)
	if err != nil {
		return cfg, err
	}
	sc := &cfg.Sidecar
	sc.DoneFiles = cliCtx.StringSlice(cmdline.FlagDoneFile)
	if sc.DoneSignal, err = signalFlag(cliCtx, cmdline.FlagDoneSignal); err != nil {
		return cfg, err
	}
	if sc.TerminationSignal, err = signalFlag(cliCtx, cmdline.FlagTerminationSignal); err != nil {
		return cfg, err
	}
	if sc.StopWhen, err = supervisor.ParseStopWhen(cliCtx.String(cmdline.FlagStopWhen)); err != nil {
		return cfg, usagef("%v", err)
	}
	if sc.QuitURLs, err = quitURLs(cliCtx); err != nil {
		return cfg, err
	}
	sc.OutliveMain = cliCtx.Duration(cmdline.FlagOutliveMain)
	if sc.ReadyWhen, err = conditionsFlag(cliCtx, cmdline.FlagReadyWhen); err != nil {
		return cfg, err
	}
	sc.ReadyFile = cliCtx.String(cmdline.FlagReadyFile)
	if sc.Restart, err = supervisor.ParseRestart(cliCtx.String(cmdline.FlagRestart)); err != nil {
		return cfg, usagef("%v", err)
	}
	sc.PollInterval = cliCtx.Duration(cmdline.FlagPollInterval)
	sc.StopDelay = cliCtx.Duration(cmdline.FlagStopDelay)
	sc.StoppedFile = cliCtx.String(cmdline.FlagStoppedFile)
	sc.MainStartTimeout = cliCtx.Duration(cmdline.FlagMainStartTimeout)
	return cfg, nil
}
