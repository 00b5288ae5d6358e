package main

import (
	"flag"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// rawValue holds what the command line gave a flag, as text. Its Set never
// fails: Go's flag package would turn a failure into its own text
// (`invalid value "10" for flag -grace: parse error`), so the values are
// parsed later, by input, which names the flag, the value and what is
// accepted.
type rawValue struct {
	texts  []string // every value given, in order; a list's split on commas
	list   bool
	isBool bool
}

func (v *rawValue) Set(text string) error {
	if !v.list {
		v.texts = append(v.texts, text)
		return nil
	}
	// As urfave's StringSlice did: a comma separates values, in a flag as in
	// its variable.
	v.texts = append(v.texts, splitList(text)...)
	return nil
}

func (v *rawValue) String() string { return strings.Join(v.texts, ",") }

// Get lets cli.Context.Value hand the value back.
func (v *rawValue) Get() any { return v }

// IsBoolFlag makes `--child-only` take no argument, as a bool flag does.
func (v *rawValue) IsBoolFlag() bool { return v.isBool }

func splitList(text string) []string {
	parts := strings.Split(text, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// docFlag is what the help reads of a flag: urfave's own typed flags give it.
type docFlag interface {
	cli.DocGenerationFlag
	cli.CategorizableFlag
}

// rawFlag is one of urfave's typed flags for the help (its kind, default and
// variable shown as before), registered as a rawValue: urfave neither parses
// its value nor reads its variable (input does both).
type rawFlag struct {
	docFlag
	def   any // the flagSpec's default
	list  bool
	names []string // the name, then any alias
}

// Names is the flag's name and aliases as declared. The typed flag's own
// strips each with a regular expression at every call (for names in
// urfave's older "name, alias" form, which tandem's are not), and parsing
// one command line asks hundreds of times: half of the parse's time,
// before CMD can start.
func (f *rawFlag) Names() []string { return slices.Clip(f.names) }

func (f *rawFlag) Apply(set *flag.FlagSet) error {
	_, isBool := f.docFlag.(*cli.BoolFlag)
	v := &rawValue{list: f.list, isBool: isBool}
	for _, name := range f.Names() {
		set.Var(v, name, f.GetUsage())
	}
	return nil
}

// withAlias gives the string flag called name in flags another name too
// (the help shows both).
func withAlias(flags []cli.Flag, name, alias string) []cli.Flag {
	for _, f := range flags {
		if rf, ok := f.(*rawFlag); ok && rf.Names()[0] == name {
			s := rf.docFlag.(*cli.StringFlag)
			s.Aliases = append(s.Aliases, alias)
			rf.names = append(rf.names, alias)
		}
	}
	return flags
}
