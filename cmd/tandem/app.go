package main

import (
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor"
)

func newApp() *cli.App {
	// Built afresh for each app: a cli.Flag keeps what one run parsed (an
	// environment value even becomes its default), so apps must not share them.
	commands := []*cli.Command{runCommand(), sidecarCommand(), mainCommand(), doneCommand(), waitCommand(), installCommand(), versionCommand()}
	for _, c := range commands {
		c.OnUsageError = usageError // every command's bad flag exits 2
	}
	return &cli.App{
		Name:  cmdline.Program,
		Usage: "a container init that stops a Job's sidecar when the main work is done",
		UsageText: "tandem [global flags] COMMAND [flags] -- CMD [ARG...]\n" +
			"   tandem [run flags] -- CMD [ARG...]   (same as `tandem run`)",
		Version:              version,
		HideVersion:          true,
		Flags:                append(globalFlags(), supervisionFlags(supervisor.Defaults(supervisor.ModeRun))...),
		Commands:             commands,
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
	return &exitcode.Error{Code: exitcode.Usage, Err: err}
}

func usagef(format string, args ...any) error {
	return exitcode.Usagef(format, args...)
}

// withGlobals gives a command the global flags too, so that
// `tandem sidecar --log-level debug` works as well as the reverse.
func withGlobals(flags ...[]cli.Flag) []cli.Flag {
	all := globalFlags()
	for _, f := range flags {
		all = append(all, f...)
	}
	appLevel := map[string]bool{}
	for _, f := range append(globalFlags(), supervisionFlags(supervisor.Defaults(supervisor.ModeRun))...) {
		appLevel[f.Names()[0]] = true
	}
	for _, f := range all {
		if appLevel[f.Names()[0]] {
			envAtAppLevelOnly(f)
		}
	}
	return all
}

// envAtAppLevelOnly: a flag the app defines too reads its TANDEM_<FLAG> there
// only. Read at the command's level as well, the variable would count as
// given there and hide the flag given before the command name (lookup takes
// the innermost one given). The help still names the variable.
func envAtAppLevelOnly(f cli.Flag) {
	_, env, usage := flagFields(f)
	if len(*env) > 0 {
		*usage += " [$" + strings.Join(*env, ", $") + "]"
		*env = nil
	}
}
