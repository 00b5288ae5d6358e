package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// kind is what a flag's value is: what the tests know it by, what is
// accepted (said with an example), and whether "" is a value of its own.
type kind struct {
	name     string
	expected string // "a duration such as 10s or 500ms", after "expected"
	emptyOK  bool   // --termination-log "" disables
}

// parser is a kind and how one text of it is read. parse returns the
// value, or why text is not one: errBad when the kind's expected says it
// all, else a phrase to which the kind's expected is added unless it says
// what is accepted. format is how the help shows a default (fmt.Sprint
// when nil).
type parser[T any] struct {
	kind
	parse  func(text string) (T, error)
	format func(T) string
}

var errBad = errors.New("not accepted")

// bad is errBad for any error of a parser whose words stay unsaid.
func bad(err error) error {
	if err != nil {
		return errBad
	}
	return nil
}

// read is text's value, or an error saying what is wrong with it and what
// would be accepted.
func (p parser[T]) read(text string) (T, error) {
	var zero T
	if text == "" {
		if p.emptyOK {
			return zero, nil
		}
		return zero, errors.New("expected " + p.expected)
	}
	v, err := p.parse(text)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, errBad):
		return zero, errors.New("expected " + p.expected)
	case !strings.Contains(err.Error(), "expected"):
		return zero, fmt.Errorf("%v; expected %s", err, p.expected)
	}
	return zero, err
}

func (p parser[T]) show(v T) string {
	if p.format != nil {
		return p.format(v)
	}
	return fmt.Sprint(v)
}

// durationOf is a time.Duration of at least least: 0 (where 0 means off
// or forever) or a nanosecond (an interval, a timeout that must allow a try).
func durationOf(least time.Duration) parser[time.Duration] {
	p := parser[time.Duration]{kind: kind{name: "duration", expected: "a duration such as 10s or 500ms"}}
	tooSmall := errors.New("expected a duration of 0 or more, such as 10s or 500ms")
	if least > 0 {
		p.name, p.expected, tooSmall = "interval", "a duration above 0, such as 10s or 500ms", errBad
	}
	p.parse = func(text string) (time.Duration, error) {
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

var (
	durationKind = durationOf(0)
	intervalKind = durationOf(time.Nanosecond)
)

// number is a whole number from 0 to most.
func number(name, expected string, most int) parser[int] {
	return parser[int]{kind: kind{name: name, expected: expected}, parse: func(text string) (int, error) {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > most {
			return 0, errBad
		}
		return n, nil
	}}
}

var (
	exitCodeKind = number("exit code", "an exit code from 0 to 255, such as 0 or 3", exitcode.Max)
	countKind    = number("count", "a whole number from 0, such as 5", math.MaxInt)
)

var boolKind = parser[bool]{kind: kind{name: "bool", expected: "true or false"},
	parse: func(text string) (bool, error) {
		b, err := strconv.ParseBool(text)
		return b, bad(err)
	}}

var signalKind = parser[unix.Signal]{
	kind: kind{name: "signal", expected: "a signal name such as TERM or USR2, or a number from 1 to 64 (not 32 or 33)"},
	parse: func(text string) (unix.Signal, error) {
		sig, err := signals.Parse(text)
		return sig, bad(err)
	},
	format: signalName,
}

// signalName is a signal as it is given: TERM, USR2; 0 for none.
func signalName(sig unix.Signal) string {
	if sig == 0 {
		return "0"
	}
	return strings.TrimPrefix(signals.Name(sig), "SIG")
}

// rewrite is FROM:TO, a pair of signals.
type rewrite struct{ from, to unix.Signal }

// rewriteKind reads FROM:TO. A pair that rewrites a FROM of held to
// another signal contradicts it: which one was meant cannot be known.
func rewriteKind(held *[]rewrite) parser[rewrite] {
	return parser[rewrite]{kind: kind{name: "rewrite", expected: "FROM:TO with signals such as TERM:QUIT, or FROM:0 to drop FROM"},
		parse: func(text string) (rewrite, error) {
			from, to, err := signals.ParseRewrite(text)
			if err != nil {
				return rewrite{}, problem(err, text)
			}
			for _, r := range *held {
				if r.from == from && r.to != to {
					return rewrite{}, fmt.Errorf("--%s %s:%s and --%s %s:%s contradict each other: expected one rewrite of %s", cmdline.FlagRewrite,
						signalName(from), signalName(r.to), cmdline.FlagRewrite, signalName(from), signalName(to), signalName(from))
				}
			}
			return rewrite{from, to}, nil
		}}
}

var conditionKind = parser[probe.Condition]{kind: kind{name: "condition", expected: probe.Forms + ", such as tcp:127.0.0.1:5432"},
	parse: func(text string) (probe.Condition, error) {
		c, err := probe.Parse(text)
		return c, problem(err, text)
	}}

var urlKind = parser[probe.Target]{kind: kind{name: "url", expected: "an http:// URL such as http://127.0.0.1:15020/quitquitquit"},
	parse: func(text string) (probe.Target, error) {
		if strings.HasPrefix(strings.ToLower(text), "https://") {
			// Not the condition's advice (exec: with a client): a quit
			// URL is called, not probed.
			return probe.Target{}, errors.New("https is not supported (tandem stays small and has no TLS)")
		}
		t, err := probe.ParseURL(text)
		return t, problem(err, text)
	}}

// isName: a name is matched between processes (--peer NAME finds --name
// NAME) and written into files: the characters of container names, no
// separators; ^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$ checked by hand, as
// compiling that expression (its 252 repeats) took about a millisecond of
// every start-up, before CMD.
func isName(text string) bool {
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

var nameKind = parser[string]{kind: kind{name: "name", expected: "a name such as db-proxy (letters, digits, '-', '_' and '.')"},
	parse: func(text string) (string, error) {
		if !isName(text) {
			return "", errors.New("expected a name such as db-proxy (letters, digits, '-', '_' and '.', at most 253)")
		}
		return text, nil
	}}

// option is a word that a choice accepts, and what it means.
type option[T comparable] struct {
	word  string
	value T
}

// choice is one of options' words; a default that is none of them shows
// as nothing.
func choice[T comparable](options ...option[T]) parser[T] {
	words := make([]string, len(options))
	for i, o := range options {
		words[i] = o.word
	}
	last := len(words) - 1
	p := parser[T]{kind: kind{name: "choice", expected: strings.Join(words[:last], ", ") + " or " + words[last]}}
	p.parse = func(text string) (T, error) {
		i := slices.Index(words, text)
		if i < 0 {
			var zero T
			return zero, errBad
		}
		return options[i].value, nil
	}
	p.format = func(v T) string {
		for _, o := range options {
			if v == o.value {
				return o.word
			}
		}
		return ""
	}
	return p
}

// problem is an engine parser's error without the value it starts with
// (`condition "x": `, `rewrite "x": `, `"x": `), which the usage error
// names itself.
func problem(err error, text string) error {
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
