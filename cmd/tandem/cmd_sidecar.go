package main

import (
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// sidecarFlags are `tandem sidecar`'s own, beside supervisionFlags.
func sidecarFlags() []cli.Flag {
	d := sidecarDefaults.Sidecar
	type when = option[supervisor.StopWhen]
	stopWhen := choice(when{cmdline.StopWhenAny, supervisor.StopWhenAny}, when{cmdline.StopWhenSuccess, supervisor.StopWhenSuccess},
		when{cmdline.StopWhenDeletion, supervisor.StopWhenDeletion})
	type policy = option[supervisor.RestartPolicy]
	restart := choice(policy{"never", supervisor.RestartNever}, policy{"on-failure", supervisor.RestartOnFailure},
		policy{"always", supervisor.RestartAlways})
	return []cli.Flag{
		newFlag(cmdline.FlagDoneFile, many(pathKind("/run/tandem/done", pathRules{watched: true})),
			"stop CMD once every listed file exists (repeatable)"),
		doneSignalFlag(),
		newFlag(cmdline.FlagStopWhen, one(stopWhen, d.StopWhen),
			"any; success: ignore a done file that reports a failed main until it is replaced; deletion: only once the pod is being deleted (restartPolicy: Always)"),
		quitURLFlag("on done, POST to this http:// URL before the stop signal (repeatable)"),
		newFlag(cmdline.FlagTerminationSignal, one(signalKind, d.TerminationSignal),
			"the signal the runtime sends this container on pod deletion (the image's STOPSIGNAL, or lifecycle.stopSignal)"),
		newFlag(cmdline.FlagOutliveMain, one(durationKind, d.OutliveMain),
			"hold the termination signal until the main is done or this long has passed (0 = off)"),
		newFlag(cmdline.FlagReadyWhen, many(conditionKind), "condition for readiness: "+probe.Forms+" (repeatable)"),
		newFlag(cmdline.FlagReadyFile, one(pathKind("/run/tandem/proxy.ready", pathRules{}), ""),
			"file written once CMD started and every --ready-when holds; removed when CMD stops"),
		newFlag(cmdline.FlagRestart, one(restart, d.Restart),
			"never, on-failure or always: restart CMD when it exits before the main is done"),
		newFlag(cmdline.FlagMaxRestarts, one(countKind, d.MaxRestarts),
			"give up after this many restarts within --restart-window: exit with CMD's code, reason restart-limit (0 = no limit)"),
		newFlag(cmdline.FlagRestartWindow, one(intervalKind, d.RestartWindow), "the time within which --max-restarts counts"),
		newFlag(cmdline.FlagPollInterval, one(intervalKind, d.PollInterval),
			"safety-net stat of the done files beside the inotify watch"),
		newFlag(cmdline.FlagStopDelay, one(durationKind, d.StopDelay),
			"after the main is done, wait this long before stopping CMD, so a shipper can drain (0 = off)"),
		newFlag(cmdline.FlagStoppedFile, one(pathKind("/run/tandem/proxy.stopped", pathRules{}), ""),
			"file written once CMD exited after a requested stop: another sidecar's --done-file, for shutdown order"),
		newFlag(cmdline.FlagMainStartTimeout, one(durationKind, d.MainStartTimeout),
			"stop as if done when no main attached and nothing was done within this long (0 = off)"),
	}
}

func sidecarConfig(cliCtx *cli.Context) (supervisor.Config, error) {
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeSidecar)
	if err != nil {
		return cfg, err
	}
	sc := &cfg.Sidecar
	sc.DoneFiles = get[[]string](cliCtx, cmdline.FlagDoneFile)
	sc.DoneSignal = get[unix.Signal](cliCtx, cmdline.FlagDoneSignal)
	sc.StopWhen = get[supervisor.StopWhen](cliCtx, cmdline.FlagStopWhen)
	sc.QuitURLs = get[[]probe.Target](cliCtx, cmdline.FlagQuitURL)
	sc.TerminationSignal = get[unix.Signal](cliCtx, cmdline.FlagTerminationSignal)
	sc.OutliveMain = get[time.Duration](cliCtx, cmdline.FlagOutliveMain)
	sc.ReadyWhen = get[[]probe.Condition](cliCtx, cmdline.FlagReadyWhen)
	sc.ReadyFile = get[string](cliCtx, cmdline.FlagReadyFile)
	sc.Restart = get[supervisor.RestartPolicy](cliCtx, cmdline.FlagRestart)
	sc.MaxRestarts = get[int](cliCtx, cmdline.FlagMaxRestarts)
	sc.RestartWindow = get[time.Duration](cliCtx, cmdline.FlagRestartWindow)
	if sc.MaxRestarts > 0 && sc.Restart == supervisor.RestartNever {
		return cfg, usagef("--%s %d: has no effect without --%s on-failure or always", cmdline.FlagMaxRestarts, sc.MaxRestarts, cmdline.FlagRestart)
	}
	sc.PollInterval = get[time.Duration](cliCtx, cmdline.FlagPollInterval)
	sc.StopDelay = get[time.Duration](cliCtx, cmdline.FlagStopDelay)
	sc.StoppedFile = get[string](cliCtx, cmdline.FlagStoppedFile)
	sc.MainStartTimeout = get[time.Duration](cliCtx, cmdline.FlagMainStartTimeout)
	return cfg, ownFilesApart(sc)
}

// ownFilesApart: a file the sidecar writes must not be one it waits for
// (it would see itself done), nor its other file.
func ownFilesApart(sc *supervisor.SidecarConfig) error {
	for _, own := range []struct{ flag, path, example string }{
		{cmdline.FlagReadyFile, sc.ReadyFile, "/run/tandem/proxy.ready"},
		{cmdline.FlagStoppedFile, sc.StoppedFile, "/run/tandem/proxy.stopped"},
	} {
		for _, done := range sc.DoneFiles {
			if own.path != "" && supervisor.SamePath(own.path, done) {
				return usagef("--%s %q is also a --%s: the sidecar would wait for its own file; expected another path such as %s",
					own.flag, own.path, cmdline.FlagDoneFile, own.example)
			}
		}
	}
	if sc.ReadyFile != "" && sc.StoppedFile != "" && supervisor.SamePath(sc.ReadyFile, sc.StoppedFile) {
		return usagef("--%s %q is also the --%s; expected two paths such as /run/tandem/proxy.ready and /run/tandem/proxy.stopped",
			cmdline.FlagStoppedFile, sc.StoppedFile, cmdline.FlagReadyFile)
	}
	return nil
}
