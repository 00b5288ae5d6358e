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

// refusedAs words a refusal of flag's value text whose message starts
// with the flag's name (inject's parsers: `mode "x": expected …`) as the
// user gave the value: `--mode "x": expected …`, or `TANDEMCTL_MODE "x": …`.
func refusedAs(flag, text string, err error) error {
	return fmt.Errorf("%s%s", flagOrigin(flag, text), strings.TrimPrefix(err.Error(), flag))
}

// flagOrigin names where flag's refused value text came from: its variable
// (TANDEMCTL_MODE) when that holds it, as a webhook's Deployment sets its
// flags, else the flag (--mode); so the error names what to fix.
func flagOrigin(flag, text string) string {
	for _, env := range envVars(flag) {
		if v, ok := os.LookupEnv(env); ok && (v == text || slices.Contains(strings.Split(v, ","), text)) {
			return env
		}
	}
	return "--" + flag
}
