package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// input reads a command's flags: from the command line (the innermost
// context where the flag was given wins: `tandem --grace 5s run` as well as
// `tandem run --grace 5s`), else from its TANDEM_<FLAG> variable, else its
// default. Each value is parsed by its flag's kind; the first bad one is
// kept in err, a usage error naming the flag or variable, the value and what
// is accepted, and later reads give zero values.
type input struct {
	cliCtx *cli.Context
	err    error
	// olderEnv is a variable still read for a flag when its own is unset
	// (done's TANDEM_FILE for --done-file); deprecated lists those read.
	olderEnv   map[string]string
	deprecated []string
}

func newInput(cliCtx *cli.Context) *input { return &input{cliCtx: cliCtx} }

// texts is what was given for the flag and where: "--grace", "TANDEM_GRACE",
// or "" for the default. A list's texts are every value given.
func (in *input) texts(name string) (texts []string, origin string) {
	if c := givenIn(in.cliCtx, name); c != nil {
		return c.Value(name).(*rawValue).texts, "--" + name
	}
	for _, env := range []string{cmdline.EnvVar(name), in.olderEnv[name]} {
		if text, ok := os.LookupEnv(env); ok && env != "" {
			if env != cmdline.EnvVar(name) && !slices.Contains(in.deprecated, env) {
				in.deprecated = append(in.deprecated, env)
			}
			if raw := in.cliCtx.Value(name).(*rawValue); raw.list {
				return splitList(text), env
			}
			return []string{text}, env
		}
	}
	return nil, ""
}

// givenIn is the innermost context where the flag was given on the command
// line, under its name or an alias.
func givenIn(cliCtx *cli.Context, name string) *cli.Context {
	for _, c := range cliCtx.Lineage() {
		f := lookupFlag(c, name)
		if f == nil {
			continue
		}
		for _, given := range c.LocalFlagNames() {
			if slices.Contains(f.Names(), given) {
				return c
			}
		}
	}
	return nil
}

// commandName is the command cliCtx runs, "" for the app itself.
func commandName(cliCtx *cli.Context) string {
	if c := cliCtx.Command; c != nil && c.Name != cliCtx.App.Name {
		return c.Name
	}
	return ""
}

// lookupFlag is the flag called name among those c parsed.
func lookupFlag(c *cli.Context, name string) cli.Flag {
	var flags []cli.Flag
	switch {
	case c.Command != nil:
		flags = c.Command.Flags
	case c.App != nil:
		flags = c.App.Flags
	}
	for _, f := range flags {
		if f.Names()[0] == name {
			return f
		}
	}
	return nil
}

// parsed is every value of the flag, parsed; nil when it was not given and
// has no default, or after an error.
func (in *input) parsed(name string) []any {
	k, ok := kindOf(commandName(in.cliCtx), name)
	if !ok {
		panic(fmt.Sprintf("flag --%s has no kind: add it to flagKinds", name))
	}
	texts, origin := in.texts(name)
	if origin == "" {
		return in.defaults(name, k)
	}
	values := make([]any, 0, len(texts))
	for _, text := range texts {
		v, err := parseOne(k, text, origin)
		if err != nil {
			in.fail(err)
			return nil
		}
		values = append(values, v)
	}
	return values
}

// defaults is the flag's default, parsed as a given text would be.
func (in *input) defaults(name string, k kind) []any {
	f, _ := lookupFlag(in.cliCtx, name).(*rawFlag)
	if f == nil || f.list || f.def == "" {
		return nil
	}
	text := fmt.Sprint(f.def)
	value, problem := k.parse(text)
	if problem != "" {
		panic(fmt.Sprintf("flag --%s: default %q: %s", name, text, problem))
	}
	return []any{value}
}

func parseOne(k kind, text, origin string) (any, error) {
	if text == "" {
		if k.emptyOK {
			return "", nil
		}
		return nil, usagef("%s %q: expected %s", origin, text, k.expected)
	}
	v, problem := k.parse(text)
	if problem == "" {
		return v, nil
	}
	if !strings.Contains(problem, "expected") {
		problem += "; expected " + k.expected
	}
	return nil, usagef("%s %q: %s", origin, text, problem)
}

func (in *input) fail(err error) {
	if in.err == nil {
		in.err = err
	}
}

// one is the flag's value (the last given), or T's zero value.
func one[T any](in *input, name string) T {
	values := in.parsed(name)
	var v T
	if len(values) > 0 {
		v, _ = values[len(values)-1].(T)
	}
	return v
}

// all is every value of a repeatable flag.
func all[T any](in *input, name string) []T {
	var list []T
	for _, v := range in.parsed(name) {
		if t, ok := v.(T); ok {
			list = append(list, t)
		}
	}
	return list
}

func (in *input) str(name string) string                   { return one[string](in, name) }
func (in *input) strs(name string) []string                { return all[string](in, name) }
func (in *input) boolean(name string) bool                 { return one[bool](in, name) }
func (in *input) integer(name string) int                  { return one[int](in, name) }
func (in *input) integers(name string) []int               { return all[int](in, name) }
func (in *input) duration(name string) time.Duration       { return one[time.Duration](in, name) }
func (in *input) signal(name string) unix.Signal           { return one[unix.Signal](in, name) }
func (in *input) conditions(name string) []probe.Condition { return all[probe.Condition](in, name) }
func (in *input) urls(name string) []probe.Target          { return all[probe.Target](in, name) }

// rewrites is --rewrite as the map the engine takes.
func (in *input) rewrites(name string) map[unix.Signal]unix.Signal {
	m := map[unix.Signal]unix.Signal{}
	for _, r := range all[rewrite](in, name) {
		m[r.from] = r.to
	}
	return m
}
