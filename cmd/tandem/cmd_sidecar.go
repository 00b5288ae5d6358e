package main

import (
	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// sidecarFlags are `tandem sidecar`'s own, beside run's.
func (s *settings) sidecarFlags() []*valueFlag {
	sc := &s.cfg.Sidecar
	stopWhen := cmdline.Choice([]string{cmdline.StopWhenAny, cmdline.StopWhenSuccess, cmdline.StopWhenDeletion},
		supervisor.StopWhenAny, supervisor.StopWhenSuccess, supervisor.StopWhenDeletion)
	restart := cmdline.Choice([]string{"never", "on-failure", cmdline.RestartAlways, cmdline.RestartDuringDeletion},
		supervisor.RestartNever, supervisor.RestartOnFailure, supervisor.RestartAlways, supervisor.RestartDuringDeletion)
	return []*valueFlag{
		newFlag(cmdline.FlagDoneFile, many(cmdline.PathKind("/run/tandem/done", cmdline.PathRules{Watched: true}), &sc.DoneFiles),
			"stop CMD once every listed file exists (repeatable)"),
		doneSignalFlag(&sc.DoneSignal),
		newFlag(cmdline.FlagStopWhen, one(stopWhen, &sc.StopWhen),
			"any; success: ignore a done file that reports a failed main until it is replaced; deletion: only once the pod is being deleted (restartPolicy: Always)"),
		newFlag(cmdline.FlagQuitURL, many(urlKind, &sc.QuitURLs), "on done, POST to this http:// URL before the stop signal (repeatable)"),
		newFlag(cmdline.FlagTerminationSignal, one(cmdline.CatchableSignalKind, &sc.TerminationSignal),
			"the signal the runtime sends this container on pod deletion (the image's STOPSIGNAL, or lifecycle.stopSignal)"),
		newFlag(cmdline.FlagOutliveMain, one(cmdline.DurationKind, &sc.OutliveMain),
			"hold the termination signal until the main is done or this long has passed (0 = off)"),
		newFlag(cmdline.FlagReadyWhen, many(conditionKind, &sc.ReadyWhen), "condition for readiness: "+probe.Forms+" (repeatable)"),
		newFlag(cmdline.FlagReadyFile, one(cmdline.PathKind("/run/tandem/proxy.ready", cmdline.PathRules{}), &sc.ReadyFile),
			"file written once CMD started and every --ready-when holds; removed when CMD stops"),
		newFlag(cmdline.FlagRestart, one(restart, &sc.Restart),
			"never, on-failure, always or during-deletion: restart CMD when it exits before the main is done (during-deletion: whatever its code, only while the pod is being deleted, a main's termination mark there)"),
		newFlag(cmdline.FlagMaxRestarts, one(cmdline.CountKind, &sc.MaxRestarts),
			"give up after this many restarts within --restart-window (each restart counts, whatever CMD's exit code): exit with CMD's last code, reason restart-limit (0 = no limit)"),
		newFlag(cmdline.FlagRestartWindow, one(cmdline.IntervalKind, &sc.RestartWindow),
			"the time within which --max-restarts counts restarts (needs --max-restarts)"),
		newFlag(cmdline.FlagPollInterval, one(cmdline.IntervalKind, &sc.PollInterval),
			"safety-net stat of the done files beside the inotify watch"),
		newFlag(cmdline.FlagStopDelay, one(cmdline.DurationKind, &sc.StopDelay),
			"after the main is done, wait this long before stopping CMD, so a shipper can drain (0 = off)"),
		newFlag(cmdline.FlagStoppedFile, one(cmdline.PathKind("/run/tandem/proxy.stopped", cmdline.PathRules{}), &sc.StoppedFile),
			"file written once CMD exited after a requested stop: another sidecar's --done-file, for shutdown order"),
		newFlag(cmdline.FlagMainStartTimeout, one(cmdline.DurationKind, &sc.MainStartTimeout),
			"stop as if done when no main attached and nothing was done within this long (0 = off)"),
		newFlag(cmdline.FlagAwaitTermination, one(cmdline.BoolKind, &sc.AwaitTermination),
			"after a requested stop, keep the container up until its stop signal, then exit 0 (a native sidecar: the kubelet restarts one that ends before it has seen the mains end)"),
	}
}
