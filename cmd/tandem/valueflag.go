package main

import (
	"flag"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// newFlag declares one of tandem's flags, in the one place it is declared:
// its name (as internal/cmdline spells it), its value (a kind, and its
// default: values.go) and its usage. urfave/cli parses it, from the command
// line or from its variable TANDEM_<FLAG>, and shows it in the help.
func newFlag(name string, v value, usage string) *valueFlag {
	return &valueFlag{cli.GenericFlag{Name: name, Value: v, Usage: usage, EnvVars: []string{cmdline.EnvVar(name)}}}
}

// valueFlag is a cli.GenericFlag, with what tandem's flags need beyond it:
// a variable set but empty is a value (GenericFlag skips it, and
// `TANDEM_DONE_FILE=` must be refused as `--done-file ""` is), a list from
// the variable gives way to the command line's (as StringSliceFlag's
// does), a bool takes no argument.
type valueFlag struct{ cli.GenericFlag }

func (f *valueFlag) value() value { return f.Value.(value) }

// Names is the flag's name and aliases. GenericFlag's strips each with a
// regular expression at every call (for urfave's older "name, alias"
// form, which tandem's are not), and one parse asks hundreds of times: it
// doubled the parse's time, before CMD can start.
func (f *valueFlag) Names() []string { return append([]string{f.Name}, f.Aliases...) }

func (f *valueFlag) Apply(set *flag.FlagSet) error {
	if err := f.GenericFlag.Apply(set); err != nil {
		return err
	}
	given := false
	for _, env := range f.EnvVars {
		text, ok := os.LookupEnv(env)
		if !ok {
			continue
		}
		if text == "" {
			if err := f.Value.Set(text); err != nil {
				return refused(env, text, err)
			}
			f.HasBeenSet = true
		}
		given = true
		break
	}
	f.value().variableRead(given)
	return nil
}

// TakesValue is false for a bool flag: the help shows no placeholder, and
// the bare form's reading (asRun) does not take the next word for its value.
func (f *valueFlag) TakesValue() bool { return !f.value().IsBoolFlag() }

// IsSliceFlag: the help shows a repeatable flag as one.
func (f *valueFlag) IsSliceFlag() bool { return f.value().repeatable() }

// String is the flag's line in the help, which asks the two above.
func (f *valueFlag) String() string { return cli.FlagStringer(f) }
