package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor"
)

func newApp() *cli.App {
	cmds := commands()
	for _, c := range cmds {
		c.OnUsageError = usageError // every command's bad flag or value exits 2
	}
	return &cli.App{
		Name:  cmdline.Program,
		Usage: "a container init that stops a Job's sidecar when the main work is done",
		UsageText: "tandem [global flags] COMMAND [flags] -- CMD [ARG...]\n" +
			"   tandem [run flags] -- CMD [ARG...]   (same as `tandem run`)",
		Version:              version,
		HideVersion:          true,
		Flags:                appFlags(),
		Commands:             cmds,
		Action:               bareRun,
		OnUsageError:         usageError,
		ExitErrHandler:       func(*cli.Context, error) {}, // main() alone exits, after cleanup
		EnableBashCompletion: false,
	}
}

// argsCMD is the ArgsUsage of the commands that supervise a CMD.
const argsCMD = "-- CMD [ARG...]"

// commands are tandem's commands, in the order of the help. Each cmd_*.go
// file declares a command's flags and reads them into what the action hands
// on.
func commands() []*cli.Command {
	return []*cli.Command{
		{Name: cmdline.CmdRun, ArgsUsage: argsCMD, Flags: withGlobals(supervisionFlags(runDefaults)),
			Action: runAction,
			Usage:  "supervise CMD as PID 1: forward signals, reap every child, exit as CMD exits"},
		{Name: cmdline.CmdSidecar, ArgsUsage: argsCMD, Flags: withGlobals(supervisionFlags(sidecarDefaults), sidecarFlags()),
			Action: handTo(sidecarConfig, &runSupervisor),
			Usage:  "run CMD until the main work is done, then stop it; publish readiness; outlive the main on termination"},
		{Name: cmdline.CmdMain, ArgsUsage: argsCMD, Flags: withGlobals(supervisionFlags(mainDefaults), peerFlags(), mainFlags()),
			Action: handTo(mainConfig, &runSupervisor),
			Usage:  "wait for conditions, run CMD, and when it ends for any reason tell the sidecars"},
		{Name: cmdline.CmdDone, Flags: withGlobals(peerFlags(), doneFlags()),
			Action: handTo(doneOptions, &announceDone),
			Usage:  "announce that the main work is done: write a done file and/or signal sidecar peers"},
		{Name: cmdline.CmdWait, Flags: withGlobals(waitFlags()),
			Action: handTo(waitOptions, &waitFor),
			Usage:  "block until every condition holds (an init container, or a line of a script)"},
		{Name: cmdline.CmdInstall, ArgsUsage: "DIR", Flags: withGlobals(),
			Action: installAction,
			Usage:  "copy this binary to DIR/tandem (mode 0555, atomic) for the init-copy pattern"},
		{Name: cmdline.CmdVersion,
			Action: versionAction,
			Usage:  "print version, commit and Go version"},
	}
}

// handTo is the action of a command that reads its options with read and
// hands them to *sink. sink is one of the seams the table tests replace, so
// it is read when the command runs.
func handTo[T any](read func(*cli.Context) (T, error), sink *func(context.Context, T) error) cli.ActionFunc {
	return func(cliCtx *cli.Context) error {
		opts, err := read(cliCtx)
		if err != nil {
			return err
		}
		return (*sink)(cliCtx.Context, opts)
	}
}

func usagef(format string, args ...any) error {
	return exitcode.Usagef(format, args...)
}

// noArgs rejects arguments to a command that takes flags only; hint says
// what to give instead.
func noArgs(cliCtx *cli.Context, hint string) error {
	if cliCtx.NArg() > 0 {
		return usagef("unexpected argument %q: %s", cliCtx.Args().First(), hint)
	}
	return nil
}

var (
	runDefaults     = supervisor.Defaults(supervisor.ModeRun)
	sidecarDefaults = supervisor.Defaults(supervisor.ModeSidecar)
	mainDefaults    = supervisor.Defaults(supervisor.ModeMain)
)
