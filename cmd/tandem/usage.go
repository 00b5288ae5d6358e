package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
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
		word, closest(word, names), strings.Join(names, ", "))
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
	for _, c := range commands() {
		names = append(names, c.Name)
	}
	return names
}

// usageError is every command's OnUsageError: exit 2, and the flag parser's
// own words (`flag provided but not defined: -bogus`) said as tandem says
// them, with two dashes and what is accepted.
func usageError(cliCtx *cli.Context, err error, _ bool) error {
	return &exitcode.Error{Code: exitcode.Usage, Err: rephrase(cliCtx, err)}
}

func rephrase(cliCtx *cli.Context, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		if near := closest(name, flagNames(cliCtx)); editDistance(name, near) <= max(2, len(name)/3) {
			return fmt.Errorf("unknown flag --%s: did you mean --%s?", name, near)
		}
		return fmt.Errorf("unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = strings.TrimLeft(name, "-")
		if k, known := flagKinds[name]; known {
			return fmt.Errorf("--%s needs a value: expected %s", name, k.expected)
		}
		return fmt.Errorf("--%s needs a value", name)
	}
	if arg, ok := strings.CutPrefix(msg, "bad flag syntax: "); ok {
		return fmt.Errorf("bad flag syntax %q: expected --FLAG or --FLAG=VALUE", arg)
	}
	return err
}

func flagNames(cliCtx *cli.Context) []string {
	flags := cliCtx.App.Flags
	if c := cliCtx.Command; c != nil {
		flags = c.Flags
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	return append(names, "help")
}

// closest is the word of words at the fewest edits from typed.
func closest(typed string, words []string) string {
	best, bestDist := "", -1
	for _, w := range words {
		if d := editDistance(typed, w); bestDist < 0 || d < bestDist {
			best, bestDist = w, d
		}
	}
	return best
}

// editDistance is Levenshtein's: insertions, deletions and substitutions.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
