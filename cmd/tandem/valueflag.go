package main

import (
	"flag"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// newFlag declares one of tandem's flags, in the one place it is declared:
// its name (as internal/cmdline spells it), its value (a kind, bound to
// the field it fills: values.go) and its usage. urfave/cli parses it, from
// the command line or from its variable TANDEM_<FLAG>, and shows it in the
// help with the default the field held when it was declared.
func newFlag(name string, v value, usage string) *valueFlag {
	return &valueFlag{cli.GenericFlag{Name: name, Value: v, Usage: usage,
		EnvVars: []string{cmdline.EnvVar(name)}, DefaultText: v.String()}}
}

// valueFlag is a cli.GenericFlag, with what tandem's flags need beyond it:
// a variable set but empty is a value (GenericFlag skips it, and
// `TANDEM_DONE_FILE=` must be refused as `--done-file ""` is), a list
// from the variable gives way to the command line's, a bool takes no
// argument.
type valueFlag struct{ cli.GenericFlag }

func (f *valueFlag) value() value { return f.Value.(value) }

// Names is the flag's name and aliases. GenericFlag's strips each with a
// regular expression at every call (for urfave's older "name, alias"
// form, which tandem's are not), and one parse asks hundreds of times: it
// doubled the parse's time, before CMD can start.
func (f *valueFlag) Names() []string { return append([]string{f.Name}, f.Aliases...) }

// Apply registers the value with the parser, then sets it from the
// variable, if one is given.
func (f *valueFlag) Apply(set *flag.FlagSet) error {
	v := f.value()
	for _, name := range f.Names() {
		set.Var(v, name, f.Usage)
	}
	for _, env := range f.EnvVars {
		if text, ok := os.LookupEnv(env); ok {
			if err := v.setVariable(text); err != nil {
				return refused(env, text, err)
			}
			break
		}
	}
	v.replaced()
	return nil
}

// commandLevel is f as a command defines it too, sharing f's value: the
// app's flags parse before the command's name (`tandem --grace 5s run`,
// the bare form), the command's after it, and what is given after wins.
// Only the app's reads the variable; here the help names it.
func commandLevel(f *valueFlag) *valueFlag {
	c := *f
	c.Usage += " [$" + cmdline.EnvVar(f.Name) + "]"
	c.EnvVars = nil
	return &c
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
