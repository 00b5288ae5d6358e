package main

import (
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/peers"
)

// supervisionFlags are shared by run, sidecar and main (and the bare
// `tandem -- CMD`).
func supervisionFlags(d supervisor.Config) []cli.Flag {
	return []cli.Flag{
		newFlag(cmdline.FlagGrace, one(durationKind, d.Grace), "time between the stop signal and SIGKILL when tandem stops CMD"),
		newFlag(cmdline.FlagStopSignal, one(signalKind, d.StopSignal), "signal tandem uses to stop CMD (name or number)"),
		newFlag(cmdline.FlagRewrite, many(rewriteKind),
			"deliver a forwarded signal FROM as TO, e.g. TERM:QUIT; FROM:0 drops FROM (repeatable)"),
		newFlag(cmdline.FlagChildOnly, one(boolKind, false), "forward signals to CMD alone instead of its process group"),
		newFlag(cmdline.FlagSuccessCode, many(exitCodeKind), "report CMD's exit code N as 0 (repeatable)"),
		newFlag(cmdline.FlagTerminationLog, one(pathKind("/dev/termination-log", pathRules{emptyOK: true}), ""),
			"file for one JSON line saying why tandem ended (default /dev/termination-log when writable; empty disables)"),
		newFlag(cmdline.FlagName, one(nameKind, ""),
			"this container's name in logs, files, and for done --peer (give it as a flag so peers can see it)"),
	}
}

// supervisionConfig starts from the mode's defaults and reads the flags of
// supervisionFlags over them.
func supervisionConfig(cliCtx *cli.Context, mode supervisor.Mode) (supervisor.Config, error) {
	cfg := supervisor.Defaults(mode)
	var err error
	if cfg.Rewrite, err = rewrites(get[[]rewrite](cliCtx, cmdline.FlagRewrite)); err != nil {
		return cfg, err
	}
	cfg.Command = cliCtx.Args().Slice()
	cfg.Name = get[string](cliCtx, cmdline.FlagName)
	cfg.Grace = get[time.Duration](cliCtx, cmdline.FlagGrace)
	cfg.StopSignal = get[unix.Signal](cliCtx, cmdline.FlagStopSignal)
	cfg.ChildOnly = get[bool](cliCtx, cmdline.FlagChildOnly)
	cfg.SuccessCodes = get[[]int](cliCtx, cmdline.FlagSuccessCode)
	cfg.Log = newLogger(cliCtx, mode.String())
	if given(cliCtx, cmdline.FlagTerminationLog) {
		cfg.TerminationLog = get[string](cliCtx, cmdline.FlagTerminationLog)
		return cfg, nil
	}
	if cfg.TerminationLog = defaultTerminationLog(); cfg.TerminationLog == "" {
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

func quitURLFlag(usage string) cli.Flag {
	return newFlag(cmdline.FlagQuitURL, many(urlKind), usage)
}

// peerFlags are shared by main and done.
func peerFlags() []cli.Flag {
	return []cli.Flag{
		newFlag(cmdline.FlagSignalPeers, one(boolKind, false),
			"send the done signal to every tandem sidecar in the shared PID namespace"),
		newFlag(cmdline.FlagPeer, many(nameKind),
			"signal only the sidecar started with --name NAME (repeatable; implies --signal-peers)"),
		newFlag(cmdline.FlagPeerTimeout, one(intervalKind, supervisor.DefaultPeerTimeout),
			"how long to keep looking for peers that have not started yet"),
		doneSignalFlag(),
	}
}

func doneSignalFlag() cli.Flag {
	return newFlag(cmdline.FlagDoneSignal, one(signalKind, sidecarDefaults.Sidecar.DoneSignal),
		"the signal that means \"main is done\" (main and sidecar must agree)")
}

func peerOptions(cliCtx *cli.Context) peers.Options {
	opts := peers.Options{
		Names:   get[[]string](cliCtx, cmdline.FlagPeer),
		Timeout: get[time.Duration](cliCtx, cmdline.FlagPeerTimeout),
	}
	opts.Enabled = get[bool](cliCtx, cmdline.FlagSignalPeers) || len(opts.Names) > 0
	return opts
}
