package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// value is what one of tandem's flags holds. Bound where the flag is
// declared to the field it fills, its Set refuses a bad text, saying what
// is wrong and what would be accepted (the one check of that text), and
// writes a good one into the field.
type value interface {
	flag.Value
	IsBoolFlag() bool
	kindOf() cmdline.Kind
	repeatable() bool
	setVariable(text string) error // the text of TANDEM_<FLAG>
	// replaced: what is held came from a source (the variable, the command
	// line before the command's name) that the next text replaces.
	replaced()
}

// bound is a value of p's kind: a flag given once, whose last text counts
// (one), or a repeatable one that holds every text, in order (many).
type bound[T any] struct {
	cmdline.Parser[T]
	one   *T
	many  *[]T
	given bool
	fresh bool // the next Set replaces what many holds
}

// one binds a flag to *dst, which holds its default until it is given.
func one[T any](p cmdline.Parser[T], dst *T) *bound[T] { return &bound[T]{Parser: p, one: dst} }

// many binds a repeatable flag to *dst.
func many[T any](p cmdline.Parser[T], dst *[]T) *bound[T] { return &bound[T]{Parser: p, many: dst} }

func (b *bound[T]) Set(text string) error {
	if b.fresh {
		*b.many, b.fresh = nil, false
	}
	v, err := b.Read(text)
	switch {
	case err != nil:
		return err
	case b.one != nil:
		*b.one = v
	default:
		*b.many = append(*b.many, v)
	}
	b.given = true
	return nil
}

// setVariable: a comma separates the values of a repeatable flag's
// variable. On the command line each flag is one value: a path or an
// exec: condition may hold a comma.
func (b *bound[T]) setVariable(text string) error {
	if b.one != nil {
		return b.Set(text)
	}
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		switch err := b.Set(part); {
		case err != nil && part != text:
			return fmt.Errorf("%q: %w", part, err) // which of the values
		case err != nil:
			return err
		}
	}
	return nil
}

func (b *bound[T]) String() string {
	if b.one != nil {
		return b.Show(*b.one)
	}
	texts := make([]string, len(*b.many))
	for i, v := range *b.many {
		texts[i] = b.Show(v)
	}
	return strings.Join(texts, ",")
}

// IsBoolFlag: a bool flag takes no argument (`--child-only`), as Go's flag
// package reads one.
func (b *bound[T]) IsBoolFlag() bool {
	_, ok := any(b.one).(*bool)
	return ok
}

func (b *bound[T]) kindOf() cmdline.Kind { return b.Kind }
func (b *bound[T]) repeatable() bool     { return b.many != nil }
func (b *bound[T]) replaced()            { b.fresh = b.many != nil && len(*b.many) > 0 }
