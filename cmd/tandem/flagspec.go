package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// flagSpec declares one of tandem's flags: its internal/cmdline name, its
// default and its usage. The default's type picks the kind of flag: string,
// bool, int, time.Duration, or list ([]string) and intList ([]int) for a
// repeatable flag.
type flagSpec struct {
	name  string
	value any
	usage string
}

// Defaults that only give a flag its kind.
var (
	list    []string // a repeatable flag
	intList []int    // a repeatable number
	noTime  time.Duration
)

// appFlags are what the app defines: the global flags and run's, so that
// `tandem --grace 5s -- CMD` and `tandem --grace 5s run -- CMD` parse.
func appFlags() []flagSpec {
	return append(globalFlags(), supervisionFlags(supervisor.Defaults(supervisor.ModeRun))...)
}

// withGlobals gives a command the global flags too, so that
// `tandem sidecar --log-level debug` works as well as the reverse.
func withGlobals(specs ...[]flagSpec) []cli.Flag {
	all := globalFlags()
	for _, s := range specs {
		all = append(all, s...)
	}
	atAppLevel := map[string]bool{}
	for _, s := range appFlags() {
		atAppLevel[s.name] = true
	}
	return cliFlags(all, atAppLevel)
}

// cliFlags builds the flags of specs, afresh for each app: a cli.Flag keeps
// what one run parsed. Each reads its TANDEM_<FLAG> variable (input reads
// it); the help names it once, at the app level for a flag the app defines
// too (envAtAppLevel).
func cliFlags(specs []flagSpec, envAtAppLevel map[string]bool) []cli.Flag {
	flags := make([]cli.Flag, len(specs))
	for i, s := range specs {
		env, usage := []string{cmdline.EnvVar(s.name)}, s.usage
		if envAtAppLevel[s.name] {
			env, usage = nil, usage+" [$"+cmdline.EnvVar(s.name)+"]"
		}
		flags[i] = s.build(usage, env)
	}
	return flags
}

// build is the flag urfave registers: the typed flag the default's type
// picks, for the help, wrapped so that parsing is left to input.
func (s flagSpec) build(usage string, env []string) cli.Flag {
	_, isList := s.value.([]string)
	_, isIntList := s.value.([]int)
	return &rawFlag{docFlag: s.doc(usage, env), def: s.value, list: isList || isIntList, names: []string{s.name}}
}

func (s flagSpec) doc(usage string, env []string) docFlag {
	switch v := s.value.(type) {
	case string:
		return &cli.StringFlag{Name: s.name, Value: v, Usage: usage, EnvVars: env}
	case bool:
		return &cli.BoolFlag{Name: s.name, Value: v, Usage: usage, EnvVars: env}
	case int:
		return &cli.IntFlag{Name: s.name, Value: v, Usage: usage, EnvVars: env}
	case time.Duration:
		return &cli.DurationFlag{Name: s.name, Value: v, Usage: usage, EnvVars: env}
	case []string:
		return &cli.StringSliceFlag{Name: s.name, Usage: usage, EnvVars: env}
	case []int:
		return &cli.IntSliceFlag{Name: s.name, Usage: usage, EnvVars: env}
	}
	panic(fmt.Sprintf("flag --%s: a default of type %T: add it to flagSpec.doc", s.name, s.value))
}
