package main

import (
	"slices"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// supervisionFlags are shared by run, sidecar and main (and the bare
// `tandem -- CMD`).
func supervisionFlags(d supervisor.Config) []flagSpec {
	return []flagSpec{
		{cmdline.FlagGrace, d.Grace, "time between the stop signal and SIGKILL when tandem stops CMD"},
		{cmdline.FlagStopSignal, signalFlagValue(d.StopSignal), "signal tandem uses to stop CMD (name or number)"},
		{cmdline.FlagRewrite, list, "deliver a forwarded signal FROM as TO, e.g. TERM:QUIT; FROM:0 drops FROM (repeatable)"},
		{cmdline.FlagChildOnly, false, "forward signals to CMD alone instead of its process group"},
		{cmdline.FlagSuccessCode, intList, "report CMD's exit code N as 0 (repeatable)"},
		{cmdline.FlagTerminationLog, "",
			"file for one JSON line saying why tandem ended (default /dev/termination-log when writable; empty disables)"},
		{cmdline.FlagName, "",
			"this container's name in logs, files, and for done --peer (give it as a flag so peers can see it)"},
	}
}

// signalFlagValue is how a default signal is shown: TERM, USR2.
func signalFlagValue(sig unix.Signal) string {
	name := signals.Name(sig)
	return name[len("SIG"):]
}

// supervisionConfig starts from the mode's defaults and reads the flags of
// supervisionFlags over them.
func supervisionConfig(cliCtx *cli.Context, mode supervisor.Mode) (supervisor.Config, error) {
	cfg := supervisor.Defaults(mode)
	cfg.Command = cliCtx.Args().Slice()
	cfg.Name = flagString(cliCtx, cmdline.FlagName)
	cfg.Grace = lookup(cliCtx, cmdline.FlagGrace).Duration(cmdline.FlagGrace)
	var err error
	if cfg.Log, err = newLogger(cliCtx, mode.String()); err != nil {
		return cfg, err
	}
	if cfg.StopSignal, err = signalFlag(lookup(cliCtx, cmdline.FlagStopSignal), cmdline.FlagStopSignal); err != nil {
		return cfg, err
	}
	cfg.Rewrite = map[unix.Signal]unix.Signal{}
	for _, pair := range lookup(cliCtx, cmdline.FlagRewrite).StringSlice(cmdline.FlagRewrite) {
		from, to, err := signals.ParseRewrite(pair)
		if err != nil {
			return cfg, usagef("--%s: %v", cmdline.FlagRewrite, err)
		}
		cfg.Rewrite[from] = to
	}
	cfg.ChildOnly = lookup(cliCtx, cmdline.FlagChildOnly).Bool(cmdline.FlagChildOnly)
	cfg.SuccessCodes = lookup(cliCtx, cmdline.FlagSuccessCode).IntSlice(cmdline.FlagSuccessCode)
	cfg.TerminationLog = defaultTerminationLog()
	if c := lookup(cliCtx, cmdline.FlagTerminationLog); c.IsSet(cmdline.FlagTerminationLog) {
		cfg.TerminationLog = c.String(cmdline.FlagTerminationLog)
	} else if cfg.TerminationLog == "" {
		// Say why no termination log will be written: outside Kubernetes,
		// or under a read-only root, the default path is missing or
		// read-only, and that is not an error.
		cfg.Log.Debug().Str("path", supervisor.DefaultTerminationLogPath).
			Msg("termination log skipped: the default path is missing or not writable")
	}
	return cfg, nil
}

// defaultTerminationLog is a seam for the table tests: the real default
// depends on this machine's /dev/termination-log.
var defaultTerminationLog = supervisor.DefaultTerminationLog

// lookup is the context to read a flag from. The app defines the global and
// supervision flags too, so `tandem --grace 5s run -- CMD` parses; reading
// only the command's own context would silently drop such a flag. The
// innermost context where it was given on the command line wins, else the
// command's own (its TANDEM_<FLAG> value or the default).
func lookup(cliCtx *cli.Context, name string) *cli.Context {
	for _, c := range cliCtx.Lineage() {
		if slices.Contains(c.LocalFlagNames(), name) {
			return c
		}
	}
	return cliCtx
}

func flagString(cliCtx *cli.Context, name string) string {
	return lookup(cliCtx, name).String(name)
}

func signalFlag(cliCtx *cli.Context, name string) (unix.Signal, error) {
	sig, err := signals.Parse(cliCtx.String(name))
	if err != nil {
		return 0, usagef("--%s: %v", name, err)
	}
	return sig, nil
}

func conditionsFlag(cliCtx *cli.Context, name string) ([]probe.Condition, error) {
	conds, err := probe.ParseAll(cliCtx.StringSlice(name))
	if err != nil {
		return nil, usagef("--%s: %v", name, err)
	}
	return conds, nil
}

func quitURLFlag(usage string) flagSpec {
	return flagSpec{cmdline.FlagQuitURL, list, usage}
}

func quitURLs(cliCtx *cli.Context) ([]probe.Target, error) {
	var targets []probe.Target
	for _, raw := range cliCtx.StringSlice(cmdline.FlagQuitURL) {
		t, err := probe.ParseURL(raw)
		if err != nil {
			return nil, usagef("--%s: %v", cmdline.FlagQuitURL, err)
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// peerFlags are shared by main and done.
func peerFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagSignalPeers, false, "send the done signal to every `tandem sidecar` in the shared PID namespace"},
		{cmdline.FlagPeer, list, "signal only the sidecar started with --name NAME (repeatable; implies --signal-peers)"},
		{cmdline.FlagPeerTimeout, supervisor.DefaultPeerTimeout, "how long to keep looking for peers that have not started yet"},
		doneSignalFlag(),
	}
}

func doneSignalFlag() flagSpec {
	d := supervisor.Defaults(supervisor.ModeSidecar).Sidecar.DoneSignal
	return flagSpec{cmdline.FlagDoneSignal, signalFlagValue(d), "the signal that means \"main is done\" (main and sidecar must agree)"}
}

func peerOptions(cliCtx *cli.Context) peers.Options {
	opts := peers.Options{
		Names:   cliCtx.StringSlice(cmdline.FlagPeer),
		Timeout: cliCtx.Duration(cmdline.FlagPeerTimeout),
	}
	opts.Enabled = cliCtx.Bool(cmdline.FlagSignalPeers) || len(opts.Names) > 0
	return opts
}
