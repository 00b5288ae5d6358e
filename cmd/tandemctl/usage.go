package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Usage errors in one clear line, as kubectl writes them: what was wrong,
// the value, what is accepted. The flag package's own texts ("flag
// provided but not defined: -foo", "invalid value ... parse error",
// strconv's) name flags with one dash and accept nothing in particular.

var (
	unknownFlag  = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	missingValue = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)
	badValue     = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): `)
	badEnvValue  = regexp.MustCompile(`^could not parse "(.*)" as \w+ value from environment variable "([^"]+)" for flag ([^:]+): `)
	twoForms     = regexp.MustCompile(`^Cannot use two forms of the same flag: (\S+) (\S+)$`)
)

// onUsageError is every command's: the flag package's error made clear.
func onUsageError(cliCtx *cli.Context, err error, _ bool) error {
	return usageError{clearUsage(cliCtx, err)}
}

// clearUsage rewrites a flag parsing error of the command cliCtx runs.
func clearUsage(cliCtx *cli.Context, err error) error {
	msg := err.Error()
	if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		path := commandPath(cliCtx)
		return fmt.Errorf("unknown flag %s for %s: see `%s --help`", dashed(m[1]), path, path)
	}
	if m := missingValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s needs a value: expected %s", dashed(m[1]), accepted(cliCtx, m[1]))
	}
	if m := badValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s %q: expected %s", dashed(m[2]), m[1], accepted(cliCtx, m[2]))
	}
	if m := badEnvValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s=%q (%s): expected %s", m[2], m[1], dashed(m[3]), accepted(cliCtx, m[3]))
	}
	if m := twoForms.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s and %s are two names of one flag: expected only one of them", dashed(m[2]), dashed(m[1]))
	}
	return err
}

// commandPath is "tandemctl inject", or "tandemctl" before any command.
func commandPath(cliCtx *cli.Context) string {
	if cliCtx.Command == nil || cliCtx.Command.Name == "" || cliCtx.Command.Name == cliCtx.App.Name {
		return cliCtx.App.Name
	}
	return cliCtx.App.Name + " " + cliCtx.Command.Name
}

// dashed names a flag as it is typed: -n, --lookup-timeout.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// accepted says what a flag takes, by its type.
func accepted(cliCtx *cli.Context, name string) string {
	flags := cliCtx.App.Flags
	if cliCtx.Command != nil && len(cliCtx.Command.Flags) > 0 {
		flags = cliCtx.Command.Flags
	}
	for _, f := range flags {
		if !hasName(f, name) {
			continue
		}
		switch f.(type) {
		case *cli.DurationFlag:
			return "a duration such as 10s, 1m or 1h30m"
		case *cli.IntFlag:
			return "a whole number such as 1024"
		case *cli.BoolFlag:
			return "true or false"
		}
	}
	return "a value (see `" + commandPath(cliCtx) + " --help`)"
}

func hasName(f cli.Flag, name string) bool {
	for _, n := range f.Names() {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// helpCommand replaces urfave/cli's, whose unknown topic exits 3 with a
// text of its own: `tandemctl help injekt` is a usage error like
// `tandemctl injekt`.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, or the flags of one",
		ArgsUsage: "[COMMAND]",
		Action: func(cliCtx *cli.Context) error {
			switch {
			case cliCtx.NArg() == 0:
				return cli.ShowAppHelp(cliCtx)
			case cliCtx.NArg() > 1:
				return usageError{fmt.Errorf("help takes one command, got %q", cliCtx.Args().Slice())}
			case cliCtx.App.Command(cliCtx.Args().First()) == nil:
				return unknownCommand(cliCtx)
			}
			// The app's context lists the commands; this one's, help's own.
			return cli.ShowCommandHelp(cliCtx.Lineage()[1], cliCtx.Args().First())
		},
	}
}

// noArguments refuses arguments to a command that takes none.
func noArguments(cliCtx *cli.Context) error {
	if cliCtx.NArg() > 0 {
		return usageError{fmt.Errorf("%s takes no arguments, got %q", cliCtx.Command.Name, cliCtx.Args().Slice())}
	}
	return nil
}

// refusedAs words a refusal of a flag's value whose message starts with
// the flag's name (inject's parsers: `mode "x": expected …`) as the user
// gave the value: `--mode "x": expected …`, or `TANDEMCTL_MODE "x": …`.
func refusedAs(cliCtx *cli.Context, flag string, err error) error {
	origin, _ := valueSource(cliCtx, flag)
	return fmt.Errorf("%s%s", origin, strings.TrimPrefix(err.Error(), flag))
}

// givenAs is a flag's value in effect as the user gave it, for a refusal
// to name: `--lookup-timeout "-1s"`, or `TANDEMCTL_LOOKUP_TIMEOUT
// "-1000ms"`, the text of the variable as it is set.
func givenAs(cliCtx *cli.Context, flag string) string {
	origin, text := valueSource(cliCtx, flag)
	return fmt.Sprintf("%s %q", origin, text)
}

// valueSource says where the value in effect of flag came from, and its
// text there: the first of the variables its declaration reads that is
// set (TANDEMCTL_MODE; KUBECONFIG for --kubeconfig), unless the command
// line replaced what that gave; else the flag (--mode). A webhook's
// Deployment sets its flags as variables: the error names what to fix.
func valueSource(cliCtx *cli.Context, flag string) (origin, text string) {
	text = fmt.Sprint(cliCtx.Value(flag))
	f := declared(cliCtx, flag)
	if f == nil || !f.IsSet() { // IsSet: a variable gave it
		return dashed(flag), text
	}
	for _, env := range f.GetEnvVars() {
		if v, ok := os.LookupEnv(env); ok {
			if keptFromVariable(cliCtx, f, v) {
				return env, v
			}
			break
		}
	}
	return dashed(flag), text
}

// declared is the declaration of flag in the command cliCtx runs.
func declared(cliCtx *cli.Context, flag string) cli.DocGenerationFlag {
	flags := cliCtx.App.Flags
	if cliCtx.Command != nil {
		flags = append(slices.Clip(cliCtx.Command.Flags), flags...)
	}
	for _, f := range flags {
		if d, ok := f.(cli.DocGenerationFlag); ok && hasName(f, flag) {
			return d
		}
	}
	return nil
}

// keptFromVariable: the value in effect of f is the one its variable's
// text gave (urfave/cli applies the variable first, as the default the
// command line replaces). A list's variable is split at commas.
func keptFromVariable(cliCtx *cli.Context, f cli.DocGenerationFlag, variable string) bool {
	name := f.Names()[0]
	if _, list := f.(*cli.StringSliceFlag); list {
		items := strings.Split(variable, ",")
		for i := range items {
			items[i] = strings.TrimSpace(items[i])
		}
		return slices.Equal(cliCtx.StringSlice(name), items)
	}
	return fmt.Sprint(cliCtx.Value(name)) == f.GetValue()
}

// originOf names where a list flag's item came from: its variable when
// that gave the list in effect, else the flag.
func originOf(cliCtx *cli.Context, flag string) string {
	origin, _ := valueSource(cliCtx, flag)
	return origin
}
