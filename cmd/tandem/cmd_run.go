package main

import (
	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// supervisionFlags are run's, which sidecar and main share (and the bare
// `tandem -- CMD`): the app defines them.
func (s *settings) supervisionFlags() []*valueFlag {
	c := &s.cfg
	s.termLog = one(cmdline.PathKind("/dev/termination-log", cmdline.PathRules{EmptyOK: true}), &c.TerminationLog)
	s.name = newFlag(cmdline.FlagName, one(cmdline.NameKind, &c.Name),
		"this container's name in logs, files, and for done --peer (give it as a flag so peers can see it)")
	return []*valueFlag{
		newFlag(cmdline.FlagGrace, one(cmdline.DurationKind, &c.Grace), "time between the stop signal and SIGKILL when tandem stops CMD"),
		newFlag(cmdline.FlagStopSignal, one(cmdline.SignalKind, &c.StopSignal), "signal tandem uses to stop CMD (name or number)"),
		newFlag(cmdline.FlagRewrite, many(cmdline.RewriteKind(&s.rewrites), &s.rewrites),
			"deliver a forwarded signal FROM as TO, e.g. TERM:QUIT; FROM:0 drops FROM (repeatable)"),
		newFlag(cmdline.FlagChildOnly, one(cmdline.BoolKind, &c.ChildOnly), "forward signals to CMD alone instead of its process group"),
		newFlag(cmdline.FlagSuccessCode, many(cmdline.ExitCodeKind, &c.SuccessCodes), "report CMD's exit code N as 0 (repeatable)"),
		newFlag(cmdline.FlagTerminationLog, s.termLog,
			"file for one JSON line saying why tandem ended (default /dev/termination-log when writable; empty disables)"),
		s.name,
	}
}

// supervise is the action of run, sidecar and main (and the bare form):
// the settings as mode's config, refused before anything starts unless
// they hold together (supervisor.Config's Validate), handed to the
// supervisor.
func (s *settings) supervise(mode supervisor.Mode) cli.ActionFunc {
	return func(cliCtx *cli.Context) error {
		cfg := s.config(mode, cliCtx.Args().Slice())
		if err := cfg.Validate(); err != nil {
			return usagef("%w", err)
		}
		return runSupervisor(cliCtx.Context, cfg)
	}
}

func (s *settings) config(mode supervisor.Mode, command []string) supervisor.Config {
	cfg := s.cfg
	cfg.Mode, cfg.Command = mode, command
	cfg.Rewrite = make(map[unix.Signal]unix.Signal, len(s.rewrites))
	for _, r := range s.rewrites {
		cfg.Rewrite[r.From] = r.To
	}
	cfg.Main.Peers.Enabled = cfg.Main.Peers.Enabled || len(cfg.Main.Peers.Names) > 0 // --peer implies --signal-peers
	cfg.Log = s.logger(mode.String())
	if !s.termLog.given {
		if cfg.TerminationLog = defaultTerminationLog(); cfg.TerminationLog == "" {
			// Say why no termination log will be written: outside
			// Kubernetes, or under a read-only root, the default path is
			// missing or read-only, and that is not an error.
			cfg.Log.Debug().Str("path", supervisor.DefaultTerminationLogPath).
				Msg("termination log skipped: the default path is missing or not writable")
		}
	}
	return cfg
}

// defaultTerminationLog is a seam for the table tests: the real default
// depends on this machine's /dev/termination-log.
var defaultTerminationLog = supervisor.DefaultTerminationLog
