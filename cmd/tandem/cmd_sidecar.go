package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

var sidecarDefaults = supervisor.Defaults(supervisor.ModeSidecar)

// sidecarCommand builds `tandem sidecar`.
func sidecarCommand() *cli.Command {
	return &cli.Command{
		Name:      "sidecar",
		Usage:     "run CMD until the main work is done, then stop it; publish readiness; outlive the main on termination",
		ArgsUsage: "-- CMD [ARG...]",
		Flags: withGlobals(supervisionFlags(sidecarDefaults), []cli.Flag{
			&cli.StringSliceFlag{Name: "done-file", EnvVars: envVars("done-file"),
				Usage: "stop CMD once every listed file exists (repeatable)"},
			doneSignalFlag(),
			&cli.StringFlag{Name: "stop-when", Value: "any", EnvVars: envVars("stop-when"),
				Usage: "any, or success: ignore a done file that reports a failed main until it is replaced"},
			quitURLFlag("on done, POST to this http:// URL before the stop signal (repeatable)"),
			&cli.StringFlag{Name: "termination-signal", Value: signalFlagValue(sidecarDefaults.Sidecar.TerminationSignal),
				EnvVars: envVars("termination-signal"),
				Usage:   "the signal the runtime sends this container on pod deletion (the image's STOPSIGNAL, or lifecycle.stopSignal)"},
			&cli.DurationFlag{Name: "outlive-main", EnvVars: envVars("outlive-main"),
				Usage: "hold the termination signal until the main is done or this long has passed (0 = off)"},
			&cli.StringSliceFlag{Name: "ready-when", EnvVars: envVars("ready-when"),
				Usage: "condition for readiness: file:PATH, tcp:HOST:PORT, http://..., exec:PROG ARG... (repeatable)"},
			&cli.StringFlag{Name: "ready-file", EnvVars: envVars("ready-file"),
				Usage: "file written once CMD started and every --ready-when holds; removed when CMD stops"},
			&cli.StringFlag{Name: "restart", Value: "never", EnvVars: envVars("restart"),
				Usage: "never, on-failure or always: restart CMD when it exits before the main is done"},
			&cli.DurationFlag{Name: "poll-interval", Value: sidecarDefaults.Sidecar.PollInterval, EnvVars: envVars("poll-interval"),
				Usage: "safety-net stat of the done files beside the inotify watch"},
			&cli.DurationFlag{Name: "stop-delay", EnvVars: envVars("stop-delay"),
				Usage: "after the main is done, wait this long before stopping CMD, so a shipper can drain (0 = off)"},
			&cli.StringFlag{Name: "stopped-file", EnvVars: envVars("stopped-file"),
				Usage: "file written once CMD exited after a requested stop: another sidecar's --done-file, for shutdown order"},
			&cli.DurationFlag{Name: "main-start-timeout", EnvVars: envVars("main-start-timeout"),
				Usage: "stop as if done when no main attached and nothing was done within this long (0 = off)"},
		}),
		Action: sidecarAction,
	}
}

func sidecarAction(cliCtx *cli.Context) error {
	cfg, err := sidecarConfig(cliCtx)
	if err != nil {
		return err
	}
	return runSupervisor(cliCtx.Context, cfg)
}

func sidecarConfig(cliCtx *cli.Context) (supervisor.Config, error) {
	cfg, err := supervisionConfig(cliCtx, supervisor.ModeSidecar)
	if err != nil {
		return cfg, err
	}
	sc := &cfg.Sidecar
	sc.DoneFiles = cliCtx.StringSlice("done-file")
	if sc.DoneSignal, err = signalFlag(cliCtx, "done-signal"); err != nil {
		return cfg, err
	}
	if sc.TerminationSignal, err = signalFlag(cliCtx, "termination-signal"); err != nil {
		return cfg, err
	}
	if sc.StopWhen, err = supervisor.ParseStopWhen(cliCtx.String("stop-when")); err != nil {
		return cfg, usagef("%v", err)
	}
	if sc.QuitURLs, err = quitURLs(cliCtx); err != nil {
		return cfg, err
	}
	sc.OutliveMain = cliCtx.Duration("outlive-main")
	if sc.ReadyWhen, err = conditionsFlag(cliCtx, "ready-when"); err != nil {
		return cfg, err
	}
	sc.ReadyFile = cliCtx.String("ready-file")
	if sc.Restart, err = supervisor.ParseRestart(cliCtx.String("restart")); err != nil {
		return cfg, usagef("%v", err)
	}
	sc.PollInterval = cliCtx.Duration("poll-interval")
	sc.StopDelay = cliCtx.Duration("stop-delay")
	sc.StoppedFile = cliCtx.String("stopped-file")
	sc.MainStartTimeout = cliCtx.Duration("main-start-timeout")
	return cfg, nil
}
