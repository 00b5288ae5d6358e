package main

import (
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/peers"
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
func supervisionConfig(in *input, mode supervisor.Mode) (supervisor.Config, error) {
	cfg := supervisor.Defaults(mode)
	cfg.Command = in.cliCtx.Args().Slice()
	cfg.Name = in.str(cmdline.FlagName)
	cfg.Grace = in.duration(cmdline.FlagGrace)
	cfg.StopSignal = in.signal(cmdline.FlagStopSignal)
	cfg.Rewrite = in.rewrites(cmdline.FlagRewrite)
	cfg.ChildOnly = in.boolean(cmdline.FlagChildOnly)
	cfg.SuccessCodes = in.integers(cmdline.FlagSuccessCode)
	cfg.TerminationLog = defaultTerminationLog()
	_, origin := in.texts(cmdline.FlagTerminationLog)
	if origin != "" {
		cfg.TerminationLog = in.str(cmdline.FlagTerminationLog)
	}
	var err error
	if cfg.Log, err = newLogger(in, mode.String()); err != nil {
		return cfg, err
	}
	if origin == "" && cfg.TerminationLog == "" {
		// Say why no termination log will be written: outside Kubernetes,
		// or under a read-only root, the default path is missing or
		// read-only, and that is not an error.
		cfg.Log.Debug().Str("path", supervisor.DefaultTerminationLogPath).
			Msg("termination log skipped: the default path is missing or not writable")
	}
	return cfg, in.err
}

// defaultTerminationLog is a seam for the table tests: the real default
// depends on this machine's /dev/termination-log.
var defaultTerminationLog = supervisor.DefaultTerminationLog

func quitURLFlag(usage string) flagSpec {
	return flagSpec{cmdline.FlagQuitURL, list, usage}
}

// peerFlags are shared by main and done.
func peerFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagSignalPeers, false, "send the done signal to every tandem sidecar in the shared PID namespace"},
		{cmdline.FlagPeer, list, "signal only the sidecar started with --name NAME (repeatable; implies --signal-peers)"},
		{cmdline.FlagPeerTimeout, supervisor.DefaultPeerTimeout, "how long to keep looking for peers that have not started yet"},
		doneSignalFlag(),
	}
}

func doneSignalFlag() flagSpec {
	d := supervisor.Defaults(supervisor.ModeSidecar).Sidecar.DoneSignal
	return flagSpec{cmdline.FlagDoneSignal, signalFlagValue(d), "the signal that means \"main is done\" (main and sidecar must agree)"}
}

func peerOptions(in *input) peers.Options {
	opts := peers.Options{
		Names:   in.strs(cmdline.FlagPeer),
		Timeout: in.duration(cmdline.FlagPeerTimeout),
	}
	opts.Enabled = in.boolean(cmdline.FlagSignalPeers) || len(opts.Names) > 0
	return opts
}
