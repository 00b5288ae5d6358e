package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/exitcode"
)

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
		if slices.Contains(commandNames(), name) { // --version
			return fmt.Errorf("unknown flag --%s: did you mean the command `tandem %s`?", name, name)
		}
		if near := closest(name, flagNames(cliCtx)); editDistance(name, near) <= max(2, len(name)/3) {
			return fmt.Errorf("unknown flag --%s: did you mean --%s?", name, near)
		}
		help := "tandem"
		if c := cliCtx.Command.Name; c != "" && c != help {
			help += " " + c
		}
		return fmt.Errorf("unknown flag --%s: see `%s --help`", name, help)
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
