package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/internal/suggest"
)

// usageError is every command's OnUsageError: exit 2, and the parser's
// own words (`flag provided but not defined: -bogus`) said as tandem says
// them, with two dashes and what is accepted; a refused value as its flag
// kept it.
func usageError(cliCtx *cli.Context, err error, _ bool) error {
	return &exitcode.Error{Code: exitcode.Usage, Err: rephrase(cliCtx, err)}
}

// refused is a bad value as tandem says it: where it came from (--FLAG or
// its variable), the text, and problem: what is wrong and what would be
// accepted.
func refused(origin, text string, problem error) error {
	return fmt.Errorf("%s %q: %v", origin, text, problem)
}

func rephrase(cliCtx *cli.Context, err error) error {
	msg := err.Error()
	for _, f := range contextFlags(cliCtx) {
		if vf, ok := f.(*valueFlag); ok && vf.refusal != nil {
			return vf.refusal
		}
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return unknownFlag(cliCtx, strings.TrimLeft(name, "-"))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = strings.TrimLeft(name, "-")
		if f := flagNamed(cliCtx, name); f != nil {
			return fmt.Errorf("--%s needs a value: expected %s", name, f.value().kindOf().Expected)
		}
		return fmt.Errorf("--%s needs a value", name)
	}
	if names, ok := strings.CutPrefix(msg, "Cannot use two forms of the same flag: "); ok {
		later, first, _ := strings.Cut(names, " ")
		return fmt.Errorf("--%s and --%s are two names of one flag: expected only one of them", first, later)
	}
	if arg, ok := strings.CutPrefix(msg, "bad flag syntax: "); ok {
		return fmt.Errorf("bad flag syntax %q: expected --FLAG or --FLAG=VALUE", arg)
	}
	return err
}

func unknownFlag(cliCtx *cli.Context, name string) error {
	if slices.Contains(commandNames(), name) { // --version
		return fmt.Errorf("unknown flag --%s: did you mean the command `tandem %s`?", name, name)
	}
	if near, ok := suggest.Near(name, flagNames(cliCtx)); ok {
		return fmt.Errorf("unknown flag --%s: did you mean --%s?", name, near)
	}
	help := "tandem"
	if c := cliCtx.Command.Name; c != "" && c != help {
		help += " " + c
	}
	return fmt.Errorf("unknown flag --%s: see `%s --help`", name, help)
}

// contextFlags are the flags cliCtx parsed: its command's, or the app's.
func contextFlags(cliCtx *cli.Context) []cli.Flag {
	if c := cliCtx.Command; c != nil {
		return c.Flags
	}
	return cliCtx.App.Flags
}

func flagNamed(cliCtx *cli.Context, name string) *valueFlag {
	for _, f := range contextFlags(cliCtx) {
		if vf, ok := f.(*valueFlag); ok && slices.Contains(vf.Names(), name) {
			return vf
		}
	}
	return nil
}

func flagNames(cliCtx *cli.Context) []string {
	var names []string
	for _, f := range contextFlags(cliCtx) {
		names = append(names, f.Names()...)
	}
	return append(names, "help")
}
