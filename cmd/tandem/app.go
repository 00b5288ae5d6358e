package main

import (
	"slices"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor"
)

func newApp() *cli.App {
	s := newSettings()
	cmds := s.commands()
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
		Flags:                commandFlags(nil, s.global, s.supervision), // the app's: before a command's name
		Commands:             cmds,
		Action:               bareRun,
		OnUsageError:         usageError,
		ExitErrHandler:       func(*cli.Context, error) {}, // main() alone exits, after cleanup
		EnableBashCompletion: false,
	}
}

// settings is what one command line fills. Each flag is declared bound to
// its field here and writes into it as it is parsed (values.go); the
// command's action hands the fields on, checked as a whole.
type settings struct {
	cfg       supervisor.Config // run, sidecar and main: the command sets Mode
	done      supervisor.DoneOptions
	wait      supervisor.WaitOptions
	logLevel  zerolog.Level // NoLevel until given: the command's default
	logFormat string
	rewrites  []cmdline.Rewrite
	// The app's flags, declared once: the global flags and run's, so that
	// `tandem --grace 5s -- CMD` and `tandem --grace 5s run -- CMD` parse.
	// The commands define them too (commandLevel), with the same values.
	global, supervision []*valueFlag
	name                *valueFlag     // --name: done's too
	termLog             *bound[string] // not given: the default path, when writable
	doneFile            *bound[string] // done's: its older variable is read when it is not given
}

func newSettings() *settings {
	cfg := supervisor.Defaults(supervisor.ModeRun)
	s := &settings{cfg: cfg, logLevel: zerolog.NoLevel, logFormat: "auto",
		done: supervisor.DoneOptions{DoneSignal: cfg.Sidecar.DoneSignal, Peers: cfg.Main.Peers},
		wait: supervisor.WaitOptions{Interval: supervisor.DefaultWaitInterval}}
	s.global, s.supervision = s.globalFlags(), s.supervisionFlags()
	return s
}

// argsCMD is the ArgsUsage of the commands that supervise a CMD.
const argsCMD = "-- CMD [ARG...]"

// commands are tandem's commands, in the order of the help. Each cmd_*.go
// file declares a command's own flags and its action.
func (s *settings) commands() []*cli.Command {
	app := slices.Concat(s.global, s.supervision)
	return []*cli.Command{
		{Name: cmdline.CmdRun, ArgsUsage: argsCMD, Flags: commandFlags(app), Action: s.supervise(supervisor.ModeRun),
			Usage: "supervise CMD as PID 1: forward signals, reap every child, exit as CMD exits"},
		{Name: cmdline.CmdSidecar, ArgsUsage: argsCMD, Flags: commandFlags(app, s.sidecarFlags()),
			Action: s.supervise(supervisor.ModeSidecar),
			Usage:  "run CMD until the main work is done, then stop it; publish readiness; outlive the main on termination"},
		{Name: cmdline.CmdMain, ArgsUsage: argsCMD, Flags: commandFlags(app, peerFlags(&s.cfg.Main.Peers, &s.cfg.Main.DoneSignal), s.mainFlags()),
			Action: s.supervise(supervisor.ModeMain),
			Usage:  "wait for conditions, run CMD, and when it ends for any reason tell the sidecars"},
		{Name: cmdline.CmdDone, Flags: commandFlags(s.global, peerFlags(&s.done.Peers, &s.done.DoneSignal), s.doneFlags()),
			Action: s.announce,
			Usage:  "announce that the main work is done: write a done file and/or signal sidecar peers"},
		{Name: cmdline.CmdWait, Flags: commandFlags(s.global, s.waitFlags()), Action: s.await,
			Usage: "block until every condition holds (an init container, or a line of a script)"},
		{Name: cmdline.CmdInstall, ArgsUsage: "DIR", Flags: commandFlags(s.global), Action: installAction,
			Usage: "copy this binary to DIR/tandem (mode 0555, atomic) for the init-copy pattern"},
		{Name: cmdline.CmdVersion, Action: versionAction, Usage: "print version, commit and Go version"},
	}
}

// commandFlags are a command's flags: the app's that it defines again,
// sharing their values (commandLevel), then its own. With none shared,
// they are the app's.
func commandFlags(shared []*valueFlag, own ...[]*valueFlag) []cli.Flag {
	var all []cli.Flag
	for _, f := range shared {
		all = append(all, commandLevel(f))
	}
	for _, f := range slices.Concat(own...) {
		all = append(all, f)
	}
	return all
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
