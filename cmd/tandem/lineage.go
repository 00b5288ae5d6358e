package main

import (
	"slices"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// The global flags and run's are defined twice: by the app, for `tandem
// --grace 5s run` and the bare form, and by each command, for `tandem run
// --grace 5s`. Only the app's reads the variable; get reads whichever was
// given.

// get is the value of the flag called name (T is its kind's type), from the
// innermost context that was given it: the command's (after the command's
// name), else the app's (before the command's name, or the variable of a
// flag the app defines: see withGlobals); else the flag's default.
func get[T any](cliCtx *cli.Context, name string) T {
	var t T
	if v, ok := givenIn(cliCtx, name).Generic(name).(value); ok {
		t, _ = v.Get().(T)
	}
	return t
}

// given: the flag called name was given, on the command line or by its
// variable.
func given(cliCtx *cli.Context, name string) bool {
	return givenIn(cliCtx, name).IsSet(name)
}

func givenIn(cliCtx *cli.Context, name string) *cli.Context {
	for _, c := range cliCtx.Lineage() {
		if c.IsSet(name) {
			return c
		}
	}
	return cliCtx
}

// appFlags are what the app defines: the global flags and run's, so that
// `tandem --grace 5s -- CMD` and `tandem --grace 5s run -- CMD` parse.
func appFlags() []cli.Flag {
	return slices.Concat(globalFlags(), supervisionFlags(runDefaults))
}

// withGlobals gives a command the global flags too, so that `tandem
// sidecar --log-level debug` works as well as the reverse. A flag the app
// defines too reads its variable at the app level only, where a value
// given before the command's name overrides it; here the help names it.
func withGlobals(flags ...[]cli.Flag) []cli.Flag {
	all := slices.Concat(append([][]cli.Flag{globalFlags()}, flags...)...)
	for _, f := range all {
		if vf, ok := f.(*valueFlag); ok && slices.Contains(appFlagNames(), vf.Name) {
			vf.Usage += " [$" + cmdline.EnvVar(vf.Name) + "]"
			vf.EnvVars = nil
		}
	}
	return all
}

var appFlagNames = sync.OnceValue(func() []string {
	var names []string
	for _, f := range appFlags() {
		names = append(names, f.Names()...)
	}
	return names
})
