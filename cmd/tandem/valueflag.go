package main

import (
	"flag"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// newFlag declares one of tandem's flags, in the one place it is declared:
// its name (as internal/cmdline spells it), its value (a kind, bound to
// the field it fills) and its usage. urfave/cli parses it, from the
// command line or its variable TANDEM_<FLAG>, and shows it in the help
// with the default its field held when it was declared.
func newFlag(name string, v value, usage string) *valueFlag {
	return &valueFlag{GenericFlag: cli.GenericFlag{Name: name, Value: v, Usage: usage,
		EnvVars: []string{cmdline.EnvVar(name)}, DefaultText: v.String()}}
}

// valueFlag is a cli.GenericFlag that reads its variable itself: set but
// empty, it is a value (`TANDEM_DONE_FILE=` is refused as `--done-file ""`
// is), and a bad one is refused in tandem's words.
type valueFlag struct {
	cli.GenericFlag
	refusal error // the text Set last refused, in tandem's words (usageError)
}

func (f *valueFlag) value() value { return f.Value.(value) }

// Names is the flag's name and aliases. GenericFlag's strips each with a
// regular expression at every call, and one parse asks hundreds of times:
// it doubled the parse's time, before CMD can start.
func (f *valueFlag) Names() []string { return append([]string{f.Name}, f.Aliases...) }

func (f *valueFlag) Apply(set *flag.FlagSet) error {
	for _, name := range f.Names() {
		set.Var(named{f.value(), "--" + name, f}, name, f.Usage)
	}
	for _, env := range f.EnvVars {
		if text, ok := os.LookupEnv(env); ok {
			if err := f.value().setVariable(text); err != nil {
				return refused(env, text, err)
			}
			break
		}
	}
	f.value().replaced()
	return nil
}

// named is a flag's value under one of its names: Go's flag package keeps
// only the words of a refusal, so the refusal itself is kept on the flag.
type named struct {
	value
	origin string
	f      *valueFlag
}

func (n named) Set(text string) error {
	err := n.value.Set(text)
	if err != nil {
		n.f.refusal = refused(n.origin, text, err)
	}
	return err
}

// commandLevel is f as a command defines it too, sharing f's value: the
// app's flags parse before the command's name (`tandem --grace 5s run`,
// the bare form), the command's after it, and what is given after wins.
// Only the app's reads the variable; here the help names it.
func commandLevel(f *valueFlag) *valueFlag {
	c := &valueFlag{GenericFlag: f.GenericFlag}
	c.Usage += " [$" + cmdline.EnvVar(f.Name) + "]"
	c.EnvVars = nil
	return c
}

// GetDefaultText is the default as declared, whatever the value holds by
// the time the help is shown.
func (f *valueFlag) GetDefaultText() string { return f.DefaultText }

// TakesValue is false for a bool flag: the help shows no placeholder, and
// the bare form's reading (asRun) does not take the next word for its value.
func (f *valueFlag) TakesValue() bool { return !f.value().IsBoolFlag() }

// IsSliceFlag: the help shows a repeatable flag as one.
func (f *valueFlag) IsSliceFlag() bool { return f.value().repeatable() }

// String is the flag's line in the help, which asks the two above.
func (f *valueFlag) String() string { return cli.FlagStringer(f) }
