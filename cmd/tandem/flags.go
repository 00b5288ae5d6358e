package main

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor"
)

// supervisionFlags are shared by run, sidecar and main.
func supervisionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "grace", Value: supervisor.DefaultGrace, EnvVars: envVars("grace"),
			Usage: "time between the stop signal and SIGKILL when tandem stops CMD"},
		&cli.StringFlag{Name: "stop-signal", Value: "TERM", EnvVars: envVars("stop-signal"),
			Usage: "signal tandem uses to stop CMD (name or number)"},
		&cli.StringSliceFlag{Name: "rewrite", EnvVars: envVars("rewrite"),
			Usage: "deliver a forwarded signal FROM as TO, e.g. TERM:QUIT (repeatable)"},
		&cli.BoolFlag{Name: "child-only", EnvVars: envVars("child-only"),
			Usage: "forward signals to CMD alone instead of its process group"},
		&cli.IntSliceFlag{Name: "success-code", EnvVars: envVars("success-code"),
			Usage: "report CMD's exit code N as 0 (repeatable)"},
		&cli.StringFlag{Name: "termination-log", EnvVars: envVars("termination-log"),
			Usage: "file for one JSON line saying why tandem ended (default /dev/termination-log when writable; empty disables)"},
		&cli.StringFlag{Name: "name", EnvVars: envVars("name"),
			Usage: "this container's name in logs, files, and for done --peer (give it as a flag so peers can see it)"},
	}
}

// supervisionConfig reads the flags of supervisionFlags into a Config.
func supervisionConfig(cliCtx *cli.Context, mode supervisor.Mode) (supervisor.Config, error) {
	at := func(name string) *cli.Context { return flagContext(cliCtx, name) }
	cfg := supervisor.Config{
		Mode:    mode,
		Command: cliCtx.Args().Slice(),
		Name:    at("name").String("name"),
		Grace:   at("grace").Duration("grace"),
	}
	var err error
	if cfg.Log, err = newLogger(cliCtx, mode.String()); err != nil {
		return cfg, err
	}
	if cfg.StopSignal, err = signalFlag(at("stop-signal"), "stop-signal"); err != nil {
		return cfg, err
	}
	cfg.Rewrite = map[unix.Signal]unix.Signal{}
	for _, pair := range at("rewrite").StringSlice("rewrite") {
		from, to, err := supervisor.ParseRewrite(pair)
		if err != nil {
			return cfg, usagef("--rewrite: %v", err)
		}
		cfg.Rewrite[from] = to
	}
	cfg.ChildOnly = at("child-only").Bool("child-only")
	cfg.SuccessCodes = at("success-code").IntSlice("success-code")
	cfg.TerminationLog = supervisor.DefaultTerminationLog()
	if c := at("termination-log"); c.IsSet("termination-log") {
		cfg.TerminationLog = c.String("termination-log")
	} else if cfg.TerminationLog == "" {
		// Say why no termination log will be written: outside Kubernetes,
		// or under a read-only root, the default path is missing or
		// read-only, and that is not an error.
		cfg.Log.Debug().Str("path", supervisor.DefaultTerminationLogPath).
			Msg("termination log skipped: the default path is missing or not writable")
	}
	return cfg, nil
}

// flagContext is the context to read a supervision flag from. The app
// defines these flags too, for the bare `tandem [flags] -- CMD`, so
// `tandem --grace 5s run -- CMD` parses; reading only the command's own
// context would silently drop such a flag. As with globalString, the
// innermost context where it was given on the command line wins, else the
// command's own (its TANDEM_<FLAG> value or the default).
func flagContext(cliCtx *cli.Context, name string) *cli.Context {
	for _, c := range cliCtx.Lineage() {
		if slices.Contains(c.LocalFlagNames(), name) {
			return c
		}
	}
	return cliCtx
}

func signalFlag(cliCtx *cli.Context, name string) (unix.Signal, error) {
	sig, err := supervisor.ParseSignal(cliCtx.String(name))
	if err != nil {
		return 0, usagef("--%s: %v", name, err)
	}
	return sig, nil
}

func conditionsFlag(cliCtx *cli.Context, name string) ([]supervisor.Condition, error) {
	conds, err := supervisor.ParseConditions(cliCtx.StringSlice(name))
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", name, err)
	}
	return conds, nil
}

// peerFlags are shared by main and done.
func peerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "signal-peers", EnvVars: envVars("signal-peers"),
			Usage: "send the done signal to every `tandem sidecar` in the shared PID namespace"},
		&cli.StringSliceFlag{Name: "peer", EnvVars: envVars("peer"),
			Usage: "signal only the sidecar started with --name NAME (repeatable; implies --signal-peers)"},
		&cli.DurationFlag{Name: "peer-timeout", Value: supervisor.DefaultPeerTimeout, EnvVars: envVars("peer-timeout"),
			Usage: "how long to keep looking for peers that have not started yet"},
		doneSignalFlag(),
	}
}

func doneSignalFlag() cli.Flag {
	return &cli.StringFlag{Name: "done-signal", Value: "USR2", EnvVars: envVars("done-signal"),
		Usage: "the signal that means \"main is done\" (main and sidecar must agree)"}
}

func quitURLFlag(usage string) cli.Flag {
	return &cli.StringSliceFlag{Name: "quit-url", EnvVars: envVars("quit-url"), Usage: usage}
}

func peerOptions(cliCtx *cli.Context) (supervisor.PeerOptions, error) {
	opts := supervisor.PeerOptions{
		Names:   cliCtx.StringSlice("peer"),
		Timeout: cliCtx.Duration("peer-timeout"),
	}
	opts.Enabled = cliCtx.Bool("signal-peers") || len(opts.Names) > 0
	if opts.Timeout <= 0 {
		return opts, usagef("--peer-timeout %s: expected a duration above 0, e.g. 30s", opts.Timeout)
	}
	return opts, nil
}
