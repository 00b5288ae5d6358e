package main

import (
	"flag"
	"fmt"
	"strings"
)

// value is what each of tandem's flags holds: bound to a field where the
// flag is declared, it writes each text given into that field, after its
// Set has refused a bad one, saying what is wrong and what would be
// accepted: the one check of that text.
type value interface {
	flag.Value
	kindOf() kind
	IsBoolFlag() bool
	repeatable() bool
	// setVariable is the text of the flag's variable TANDEM_<FLAG>.
	setVariable(text string) error
	// replaced: what the value holds came from a source the next text
	// replaces (the variable, or the command line before the command's
	// name).
	replaced()
}

// single is the value of a flag given once; given again, the last counts.
type single[T any] struct {
	parser[T]
	dst   *T
	given bool
}

// one binds a flag of p's kind to *dst, which holds its default until it
// is given.
func one[T any](p parser[T], dst *T) *single[T] { return &single[T]{parser: p, dst: dst} }

func (s *single[T]) Set(text string) error {
	v, err := s.read(text)
	if err != nil {
		return err
	}
	*s.dst, s.given = v, true
	return nil
}

func (s *single[T]) String() string                { return s.show(*s.dst) }
func (s *single[T]) kindOf() kind                  { return s.kind }
func (s *single[T]) repeatable() bool              { return false }
func (s *single[T]) setVariable(text string) error { return s.Set(text) }
func (s *single[T]) replaced()                     {}

// IsBoolFlag: a bool flag takes no argument (`--child-only`), as Go's flag
// package reads one.
func (s *single[T]) IsBoolFlag() bool {
	_, ok := any(*s.dst).(bool)
	return ok
}

// list is the value of a repeatable flag: every value given, in order. A
// comma separates the values of its variable; on the command line each
// flag is one value (a path or an exec: condition may hold a comma). The
// values of a later source replace an earlier one's.
type list[T any] struct {
	parser[T]
	dst   *[]T
	fresh bool // the next Set replaces what *dst holds
}

// many binds a repeatable flag of p's kind to *dst.
func many[T any](p parser[T], dst *[]T) *list[T] { return &list[T]{parser: p, dst: dst} }

func (l *list[T]) Set(text string) error {
	if l.fresh {
		*l.dst, l.fresh = nil, false
	}
	v, err := l.read(text)
	if err != nil {
		return err
	}
	*l.dst = append(*l.dst, v)
	return nil
}

func (l *list[T]) setVariable(text string) error {
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		switch err := l.Set(part); {
		case err != nil && part != text:
			return fmt.Errorf("%q: %w", part, err) // which of the values
		case err != nil:
			return err
		}
	}
	return nil
}

func (l *list[T]) String() string {
	texts := make([]string, len(*l.dst))
	for i, v := range *l.dst {
		texts[i] = l.show(v)
	}
	return strings.Join(texts, ",")
}

func (l *list[T]) kindOf() kind     { return l.kind }
func (l *list[T]) IsBoolFlag() bool { return false }
func (l *list[T]) repeatable() bool { return true }
func (l *list[T]) replaced()        { l.fresh = len(*l.dst) > 0 }
