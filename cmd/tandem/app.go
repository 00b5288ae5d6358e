package main

import (
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

func newApp() *cli.App {
	return &cli.App{
		Name:  "tandem",
		Usage: "a container init that stops a Job's sidecar when the main work is done",
		UsageText: "tandem [global flags] COMMAND [flags] -- CMD [ARG...]\n" +
			"   tandem [run flags] -- CMD [ARG...]   (same as `tandem run`)",
		Version:              version,
		HideVersion:          true,
		Flags:                append(globalFlags(), supervisionFlags()...),
		Commands:             []*cli.Command{runCommand, sidecarCommand, mainCommand, doneCommand, waitCommand, installCommand, versionCommand},
		Action:               bareRun,
		OnUsageError:         usageError,
		ExitErrHandler:       func(*cli.Context, error) {}, // main() alone exits, after cleanup
		EnableBashCompletion: false,
	}
}

// bareRun is `tandem -- CMD...`. Without the `--`, the first word was meant
// as a command name, so a typo must not be run as CMD.
func bareRun(cliCtx *cli.Context) error {
	if cliCtx.NArg() == 0 {
		return cli.ShowAppHelp(cliCtx)
	}
	if !slices.Contains(os.Args[1:], "--") {
		return usagef("unknown command %q: expected run, sidecar, main, done, wait, install, version, or `tandem -- CMD`", cliCtx.Args().First())
	}
	return runAction(cliCtx)
}

func usageError(_ *cli.Context, err error, _ bool) error {
	return &supervisor.CodedError{Code: supervisor.ExitUsage, Err: err}
}

// withGlobals gives a command the global flags too, so that
// `tandem sidecar --log-level debug` works as well as the reverse.
func withGlobals(flags ...[]cli.Flag) []cli.Flag {
	all := globalFlags()
	for _, f := range flags {
		all = append(all, f...)
	}
	return all
}
