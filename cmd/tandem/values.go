package main

import (
	"flag"
	"fmt"
	"strings"
)

// value is what each of tandem's flags holds (see newFlag). urfave/cli
// hands it every text given, from the command line or the flag's
// variable, and its Set refuses a bad one, saying what is wrong and what
// would be accepted: the one check of that text.
type value interface {
	flag.Getter
	kindOf() kind
	IsBoolFlag() bool
	repeatable() bool
	// variableRead: the flag's variable has been read (given says it set
	// the value); what follows comes from the command line.
	variableRead(given bool)
}

// single is the value of a flag given once; given again, the last counts.
type single[T any] struct {
	parser[T]
	v    T
	text string // as given, or the default as the help shows it
}

// one is a flag's value of p's kind, def until it is given.
func one[T any](p parser[T], def T) *single[T] {
	return &single[T]{parser: p, v: def, text: p.show(def)}
}

func (s *single[T]) Set(text string) error {
	v, err := s.read(text)
	if err != nil {
		return err
	}
	s.v, s.text = v, text
	return nil
}

func (s *single[T]) String() string    { return s.text }
func (s *single[T]) Get() any          { return s.v }
func (s *single[T]) kindOf() kind      { return s.kind }
func (s *single[T]) repeatable() bool  { return false }
func (s *single[T]) variableRead(bool) {}

// IsBoolFlag: a bool flag takes no argument (`--child-only`), as Go's flag
// package reads one.
func (s *single[T]) IsBoolFlag() bool {
	_, ok := any(s.v).(bool)
	return ok
}

// list is the value of a repeatable flag: every value given, in order. A
// comma separates the values of its variable; on the command line each
// flag is one value (a path or an exec: condition may hold a comma), and
// the command line's values replace the variable's.
type list[T any] struct {
	parser[T]
	values      []T
	texts       []string
	replaced    bool // the next Set replaces what is held: it came from the variable
	commandLine bool // the variable was read: Set takes one value of the command line
}

// many is a repeatable flag's value of p's kind, empty until given.
func many[T any](p parser[T]) *list[T] { return &list[T]{parser: p} }

func (l *list[T]) Set(text string) error {
	if l.replaced {
		l.values, l.texts, l.replaced = nil, nil, false
	}
	parts := []string{text}
	if !l.commandLine {
		parts = strings.Split(text, ",")
	}
	for _, part := range parts {
		part = strings.TrimSpace(part)
		v, err := l.read(part)
		switch {
		case err != nil && part != text:
			return fmt.Errorf("%q: %w", part, err) // which of the values
		case err != nil:
			return err
		}
		l.values, l.texts = append(l.values, v), append(l.texts, part)
	}
	return nil
}

func (l *list[T]) String() string          { return strings.Join(l.texts, ",") }
func (l *list[T]) Get() any                { return l.values }
func (l *list[T]) kindOf() kind            { return l.kind }
func (l *list[T]) IsBoolFlag() bool        { return false }
func (l *list[T]) repeatable() bool        { return true }
func (l *list[T]) variableRead(given bool) { l.replaced, l.commandLine = given, true }
