package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

var sidecarDefaults = supervisor.Defaults(supervisor.ModeSidecar)

// sidecarCommand builds `tandem sidecar`.
func sidecarCommand() *cli.Command {
	return &cli.Command{
		Name:      cmdline.CmdSidecar,
		Usage:     "run CMD until the main work is done, then stop it; publish readiness; outlive the main on termination",
		ArgsUsage: "-- CMD [ARG...]",
		Flags: withGlobals(supervisionFlags(sidecarDefaults), []cli.Flag{
			named(cmdline.FlagDoneFile, &cli.StringSliceFlag{
				Usage: "stop CMD once every listed file exists (repeatable)"}),
			doneSignalFlag(),
			named(cmdline.FlagStopWhen, &cli.StringFlag{Value: cmdline.StopWhenAny,
				Usage: "any, or success: ignore a done file that reports a failed main until it is replaced"}),
			quitURLFlag("on done, POST to this http:// URL before the stop signal (repeatable)"),
			named(cmdline.FlagTerminationSignal, &cli.StringFlag{Value: signalFlagValue(sidecarDefaults.Sidecar.TerminationSignal),
				Usage: "the signal the runtime sends this container on pod deletion (the image's STOPSIGNAL, or lifecycle.stopSignal)"}),
			named(cmdline.FlagOutliveMain, &cli.DurationFlag{
				Usage: "hold the termination signal until the main is done or this long has passed (0 = off)"}),
			named(cmdline.FlagReadyWhen, &cli.StringSliceFlag{
				Usage: "condition for readiness: file:PATH, tcp:HOST:PORT, http://..., exec:PROG ARG... (repeatable)"}),
			named(cmdline.FlagReadyFile, &cli.StringFlag{
				Usage: "file written once CMD started and every --ready-when holds; removed when CMD stops"}),
			named(cmdline.FlagRestart, &cli.StringFlag{Value: "never",
				Usage: "never, on-failure or always: restart CMD when it exits before the main is done"}),
			named(cmdline.FlagPollInterval, &cli.DurationFlag{Value: sidecarDefaults.Sidecar.PollInterval,
				Usage: "safety-net stat of the done files beside the inotify watch"}),
			named(cmdline.FlagStopDelay, &cli.DurationFlag{
				Usage: "after the main is done, wait this long before stopping CMD, so a shipper can drain (0 = off)"}),
			named(cmdline.FlagStoppedFile, &cli.StringFlag{
				Usage: "file written once CMD exited after a requested stop: another sidecar's --done-file, for shutdown order"}),
			named(cmdline.FlagMainStartTimeout, &cli.DurationFlag{
				Usage: "stop as if done when no main attached and nothing was done within this long (0 = off)"}),
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
