package cmdline

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/internal/signals"
)

// What each flag's value accepts, said once: cmd/tandem reads every text
// given with these kinds, and the builders of argv.go write texts they
// accept (cmd/tandem's round-trip test holds the two together). A refusal
// says what is wrong and what would be accepted, with an example.

// Kind is what a flag's value is: what the tests know it by, what is
// accepted (said with an example), and whether "" is a value of its own.
type Kind struct {
	Name     string
	Expected string // "a duration such as 10s or 500ms", after "expected"
	EmptyOK  bool   // --termination-log "" disables
}

// Parser is a kind and how one text of it is read. Parse returns the
// value, or why text is not one: errBad when the kind's Expected says it
// all, else a phrase to which Expected is added unless it says what is
// accepted. Format is how the help shows a value.
type Parser[T any] struct {
	Kind
	Parse  func(text string) (T, error)
	Format func(T) string // nil: fmt.Sprint
}

// errBad is a Parse's refusal that Expected says all about.
var errBad = errors.New("not accepted")

// bad is errBad for any error of a parser whose words stay unsaid.
func bad(err error) error {
	if err != nil {
		return errBad
	}
	return nil
}

// Read is text's value, or an error saying what is wrong with it and what
// would be accepted.
func (p Parser[T]) Read(text string) (T, error) {
	var zero T
	if text == "" {
		if p.EmptyOK {
			return zero, nil
		}
		return zero, errors.New("expected " + p.Expected)
	}
	v, err := p.Parse(text)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, errBad):
		return zero, errors.New("expected " + p.Expected)
	case !strings.Contains(err.Error(), "expected"):
		return zero, fmt.Errorf("%v; expected %s", err, p.Expected)
	}
	return zero, err
}

// Show is v as the help shows it.
func (p Parser[T]) Show(v T) string {
	if p.Format != nil {
		return p.Format(v)
	}
	return fmt.Sprint(v)
}

// durationOf is a time.Duration of at least least: 0 (where 0 means off
// or forever) or a nanosecond (an interval, a timeout that must allow a try).
func durationOf(least time.Duration) Parser[time.Duration] {
	p := Parser[time.Duration]{Kind: Kind{Name: "duration", Expected: "a duration such as 10s or 500ms"}}
	tooSmall := errors.New("expected a duration of 0 or more, such as 10s or 500ms")
	if least > 0 {
		p.Name, p.Expected, tooSmall = "interval", "a duration above 0, such as 10s or 500ms", errBad
	}
	p.Parse = func(text string) (time.Duration, error) {
		d, err := time.ParseDuration(text)
		switch {
		case err != nil:
			return 0, errBad
		case d < least:
			return 0, tooSmall
		}
		return d, nil
	}
	return p
}

// DurationKind takes 0 (off, or forever); IntervalKind does not.
var (
	DurationKind = durationOf(0)
	IntervalKind = durationOf(time.Nanosecond)
)

// number is a whole number from 0 to most.
func number(name, expected string, most int) Parser[int] {
	return Parser[int]{Kind: Kind{Name: name, Expected: expected}, Parse: func(text string) (int, error) {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > most {
			return 0, errBad
		}
		return n, nil
	}}
}

// ExitCodeKind is an exit status; CountKind a number of times.
var (
	ExitCodeKind = number("exit code", "an exit code from 0 to 255, such as 0 or 3", exitcode.Max)
	CountKind    = number("count", "a whole number from 0, such as 5", math.MaxInt)
)

// BoolKind is a bool flag's, given as --FLAG=false.
var BoolKind = Parser[bool]{Kind: Kind{Name: "bool", Expected: "true or false"},
	Parse: func(text string) (bool, error) {
		b, err := strconv.ParseBool(text)
		return b, bad(err)
	}}

// SignalKind is a signal by name or number.
var SignalKind = Parser[unix.Signal]{
	Kind: Kind{Name: "signal", Expected: "a signal name such as TERM or USR2, or a number from 1 to 64 (not 32 or 33)"},
	Parse: func(text string) (unix.Signal, error) {
		sig, err := signals.Parse(text)
		return sig, bad(err)
	},
	Format: SignalName,
}

// CatchableSignalKind is a signal a process can catch: a runtime's stop
// signal that tandem must hold or forward (--termination-signal).
var CatchableSignalKind = Parser[unix.Signal]{
	Kind:   Kind{Name: "catchable signal", Expected: "a catchable signal such as TERM or QUIT (a name or a number; not KILL, STOP, CHLD, URG, PROF or 34)"},
	Parse:  catchable(nil),
	Format: SignalName,
}

// DoneSignalKind is --done-signal's: catchable, and not SIGTERM, which
// keeps its meaning of "the pod is being deleted".
var DoneSignalKind = Parser[unix.Signal]{
	Kind:   Kind{Name: "done signal", Expected: "a catchable signal other than TERM, such as USR2 (a name or a number; not KILL, STOP, CHLD, URG, PROF or 34)"},
	Parse:  catchable([]unix.Signal{unix.SIGTERM}),
	Format: SignalName,
}

// catchable reads a signal that signals.Forwardable takes and that is
// none of refused.
func catchable(refused []unix.Signal) func(string) (unix.Signal, error) {
	return func(text string) (unix.Signal, error) {
		sig, err := signals.Parse(text)
		if err != nil || !signals.Forwardable(sig) || slices.Contains(refused, sig) {
			return 0, errBad
		}
		return sig, nil
	}
}

// SignalName is a signal as it is given: TERM, USR2; 0 for none.
func SignalName(sig unix.Signal) string {
	if sig == 0 {
		return "0"
	}
	return strings.TrimPrefix(signals.Name(sig), "SIG")
}

// Rewrite is FROM:TO, a pair of signals: a forwarded FROM is delivered as
// TO, or dropped when TO is 0.
type Rewrite struct{ From, To unix.Signal }

// RewriteKind reads FROM:TO. A pair that rewrites a FROM of held to
// another signal contradicts it: which one was meant cannot be known.
func RewriteKind(held *[]Rewrite) Parser[Rewrite] {
	return Parser[Rewrite]{Kind: Kind{Name: "rewrite", Expected: "FROM:TO with signals such as TERM:QUIT, or FROM:0 to drop FROM"},
		Parse: func(text string) (Rewrite, error) {
			from, to, err := signals.ParseRewrite(text)
			if err != nil {
				return Rewrite{}, Problem(err, text)
			}
			for _, r := range *held {
				if r.From == from && r.To != to {
					return Rewrite{}, fmt.Errorf("--%s %s:%s and --%s %s:%s contradict each other: expected one rewrite of %s", FlagRewrite,
						SignalName(from), SignalName(r.To), FlagRewrite, SignalName(from), SignalName(to), SignalName(from))
				}
			}
			return Rewrite{from, to}, nil
		}}
}

// IsName: a name is matched between processes (--peer NAME finds --name
// NAME) and written into files: the characters of container names, no
// separators; ^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$ checked by hand, as
// compiling that expression (its 252 repeats) took about a millisecond of
// every start-up, before CMD.
func IsName(text string) bool {
	if len(text) == 0 || len(text) > 253 {
		return false
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '_' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// NameKind is --name's and --peer's.
var NameKind = Parser[string]{Kind: Kind{Name: "name", Expected: "a name such as db-proxy (letters, digits, '-', '_' and '.')"},
	Parse: func(text string) (string, error) {
		if !IsName(text) {
			return "", errors.New("expected a name such as db-proxy (letters, digits, '-', '_' and '.', at most 253)")
		}
		return text, nil
	}}

// Choice is one of words, each meaning the value at its index; a default
// that is none of the values shows as nothing.
func Choice[T comparable](words []string, values ...T) Parser[T] {
	last := len(words) - 1
	p := Parser[T]{Kind: Kind{Name: "choice", Expected: strings.Join(words[:last], ", ") + " or " + words[last]}}
	p.Parse = func(text string) (T, error) {
		if i := slices.Index(words, text); i >= 0 {
			return values[i], nil
		}
		var zero T
		return zero, errBad
	}
	p.Format = func(v T) string {
		if i := slices.Index(values, v); i >= 0 {
			return words[i]
		}
		return ""
	}
	return p
}

// Problem is an engine parser's error without the value it starts with
// (`condition "x": `, `rewrite "x": `, `"x": `), which the usage error
// names itself.
func Problem(err error, text string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, word := range []string{"condition ", "rewrite ", ""} {
		if rest, ok := strings.CutPrefix(msg, word+strconv.Quote(text)+": "); ok {
			return errors.New(rest)
		}
	}
	return err
}
