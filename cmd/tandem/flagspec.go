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
// what one run parsed (an environment value even becomes its default). Each
// reads its TANDEM_<FLAG> variable, but a flag the app defines too
// (envAtAppLevel) reads it there only: read at the command's level as well,
// the variable would count as given there and hide the flag given before the
// command name (lookup takes the innermost one given). The help still names
// the variable.
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

func (s flagSpec) build(usage string, env []string) cli.Flag {
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
	panic(fmt.Sprintf("flag --%s: a default of type %T: add it to flagSpec.build", s.name, s.value))
}
