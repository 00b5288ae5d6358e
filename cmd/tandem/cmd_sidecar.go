package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

var sidecarCommand = &cli.Command{
	Name:         "sidecar",
	Usage:        "run CMD until the main work is done, then stop it; publish readiness; outlive the main on termination",
	ArgsUsage:    "-- CMD [ARG...]",
	OnUsageError: usageError,
	Flags: withGlobals(supervisionFlags(), []cli.Flag{
		&cli.StringSliceFlag{Name: "done-file", EnvVars: envVars("done-file"),
			Usage: "stop CMD once every listed file exists (repeatable)"},
		doneSignalFlag(),
		&cli.StringFlag{Name: "stop-when", Value: "any", EnvVars: envVars("stop-when"),
			Usage: "any, or success: ignore a done file that reports a failed main until it is replaced"},
		quitURLFlag("on done, POST to this http:// URL before the stop signal (repeatable)"),
		&cli.DurationFlag{Name: "outlive-main", EnvVars: envVars("outlive-main"),
			Usage: "hold an outside SIGTERM until the main is done or this long has passed (0 = off)"},
		&cli.StringSliceFlag{Name: "ready-when", EnvVars: envVars("ready-when"),
			Usage: "condition for readiness: file:PATH, tcp:HOST:PORT, http://..., exec:PROG ARG... (repeatable)"},
		&cli.StringFlag{Name: "ready-file", EnvVars: envVars("ready-file"),
			Usage: "file written once CMD started and every --ready-when holds; removed when CMD stops"},
		&cli.StringFlag{Name: "restart", Value: "never", EnvVars: envVars("restart"),
			Usage: "never, on-failure or always: restart CMD when it exits before the main is done"},
		&cli.DurationFlag{Name: "poll-interval", Value: supervisor.DefaultPollInterval, EnvVars: envVars("poll-interval"),
			Usage: "safety-net stat of the done files beside the inotify watch"},
	}),
	Action: sidecarAction,
}

func sidecarAction(cliCtx *cli.Context) error {
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeSidecar)
	if err != nil {
		return err
	}
	cfg.DoneFiles = cliCtx.StringSlice("done-file")
	if cfg.DoneSignal, err = signalFlag(cliCtx, "done-signal"); err != nil {
		return err
	}
	switch when := cliCtx.String("stop-when"); when {
	case "any":
		cfg.StopWhen = supervisor.StopWhenAny
	case "success":
		cfg.StopWhen = supervisor.StopWhenSuccess
	default:
		return usagef("--stop-when %q: expected any or success", when)
	}
	cfg.QuitURLs = cliCtx.StringSlice("quit-url")
	cfg.OutliveMain = cliCtx.Duration("outlive-main")
	if cfg.ReadyWhen, err = conditionsFlag(cliCtx, "ready-when"); err != nil {
		return err
	}
	cfg.ReadyFile = cliCtx.String("ready-file")
	switch policy := cliCtx.String("restart"); policy {
	case "never":
		cfg.Restart = supervisor.RestartNever
	case "on-failure":
		cfg.Restart = supervisor.RestartOnFailure
	case "always":
		cfg.Restart = supervisor.RestartAlways
	default:
		return usagef("--restart %q: expected never, on-failure or always", policy)
	}
	cfg.PollInterval = cliCtx.Duration("poll-interval")
	return result(supervisor.Run(cliCtx.Context, cfg))
}
