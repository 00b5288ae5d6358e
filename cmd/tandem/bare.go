package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/internal/suggest"
)

// bareRun is the app's action. The bare form `tandem [run flags] -- CMD...`
// never reaches it (asRun made it `tandem [run flags] run -- CMD...`), so
// a word here is a typo of a command, even when a `--` follows (`tandem
// sidcar --done-file F -- proxy` must not run sidcar), and no word at all is
// a misconfigured entrypoint, not a success.
func bareRun(cliCtx *cli.Context) error {
	if cliCtx.NArg() > 0 {
		return unknownCommand(cliCtx.Args().First())
	}
	return missingCommand(cliCtx)
}

// asRun writes the bare form `tandem [run flags] -- CMD...` as `tandem [run
// flags] run -- CMD...`: urfave would take a CMD named like a command
// (`tandem -- main`) for that command. It reads the app's flags as Go's flag
// package does; anything else is left for the parser to report.
func asRun(appFlags []cli.Flag, argv []string) []string {
	takesValue := map[string]bool{}
	for _, f := range appFlags {
		for _, name := range f.Names() {
			takesValue[name] = f.(cli.DocGenerationFlag).TakesValue()
		}
	}
	for i := 1; i < len(argv); i++ {
		arg := argv[i]
		if arg == "--" {
			if i == len(argv)-1 {
				return argv // no CMD: the usage, from bareRun
			}
			return slices.Concat(argv[:i], []string{cmdline.CmdRun}, argv[i:])
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		valued, known := takesValue[name]
		if !strings.HasPrefix(arg, "-") || !known {
			return argv
		}
		if valued && !hasValue {
			i++ // the next word is its value
		}
	}
	return argv
}

func unknownCommand(word string) error {
	names := commandNames()
	return usagef("unknown command %q: did you mean %q? Commands: %s; to run a program, put -- before it: tandem -- CMD",
		word, suggest.Closest(word, names), strings.Join(names, ", "))
}

// missingCommand prints the usage on stderr and ends with 2: an entrypoint
// given no command must not count as succeeded (tini and dumb-init exit
// non-zero too).
func missingCommand(cliCtx *cli.Context) error {
	out := cliCtx.App.Writer
	cliCtx.App.Writer = cliCtx.App.ErrWriter
	_ = cli.ShowAppHelp(cliCtx)
	cliCtx.App.Writer = out
	err := fmt.Errorf("missing command: expected a command such as %s, or -- CMD", cmdline.CmdRun)
	fmt.Fprintf(cliCtx.App.ErrWriter, "tandem: %v\n", err)
	return &exitcode.Error{Code: exitcode.Usage, Logged: true, Err: err}
}

func commandNames() []string {
	var names []string
	for _, c := range newSettings().commands() {
		names = append(names, c.Name)
	}
	return names
}
