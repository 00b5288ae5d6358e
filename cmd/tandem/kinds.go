package main

import (
	"errors"
	"fmt"
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

// parser is a kind and how one text of it is read. parse returns the value,
// or why text is not one: a phrase that says what is accepted, else the
// kind's expected is added to it. format is how the help shows a default
// (fmt.Sprint when nil).
type parser[T any] struct {
	kind
	parse  func(text string) (T, string)
	format func(T) string
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
	v, problem := p.parse(text)
	switch {
	case problem == "":
		return v, nil
	case !strings.Contains(problem, "expected"):
		problem += "; expected " + p.expected
	}
	return zero, errors.New(problem)
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
	tooSmall := "expected a duration of 0 or more, such as 10s or 500ms"
	if least > 0 {
		p.name, p.expected = "interval", "a duration above 0, such as 10s or 500ms"
		tooSmall = "expected " + p.expected
	}
	p.parse = func(text string) (time.Duration, string) {
		d, err := time.ParseDuration(text)
		switch {
		case err != nil:
			return 0, "expected " + p.expected
		case d < least:
			return 0, tooSmall
		}
		return d, ""
	}
	return p
}

var (
	durationKind = durationOf(0)
	intervalKind = durationOf(time.Nanosecond)
)

var exitCodeKind = parser[int]{kind: kind{name: "exit code", expected: "an exit code from 0 to 255, such as 0 or 3"},
	parse: func(text string) (int, string) {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > exitcode.Max {
			return 0, "expected an exit code from 0 to 255, such as 0 or 3"
		}
		return n, ""
	}}

var countKind = parser[int]{kind: kind{name: "count", expected: "a whole number from 0, such as 5"},
	parse: func(text string) (int, string) {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 {
			return 0, "expected a whole number from 0, such as 5"
		}
		return n, ""
	}}

var boolKind = parser[bool]{kind: kind{name: "bool", expected: "true or false"},
	parse: func(text string) (bool, string) {
		b, err := strconv.ParseBool(text)
		if err != nil {
			return false, "expected true or false"
		}
		return b, ""
	}}

var signalKind = parser[unix.Signal]{
	kind: kind{name: "signal", expected: "a signal name such as TERM or USR2, or a number from 1 to 64 (not 32 or 33)"},
	parse: func(text string) (unix.Signal, string) {
		sig, err := signals.Parse(text)
		if err != nil {
			return 0, "expected a signal name such as TERM or USR2, or a number from 1 to 64 (not 32 or 33)"
		}
		return sig, ""
	},
	// TERM, USR2: as it is given.
	format: func(sig unix.Signal) string { return strings.TrimPrefix(signals.Name(sig), "SIG") },
}

// rewrite is FROM:TO, a pair of signals.
type rewrite struct{ from, to unix.Signal }

var rewriteKind = parser[rewrite]{kind: kind{name: "rewrite", expected: "FROM:TO with signals such as TERM:QUIT, or FROM:0 to drop FROM"},
	parse: func(text string) (rewrite, string) {
		from, to, err := signals.ParseRewrite(text)
		if err != nil {
			return rewrite{}, problemOf(err, text)
		}
		return rewrite{from, to}, ""
	}}

// rewrites are --rewrite's pairs as the map the engine takes. Two pairs
// that rewrite one signal to two others contradict each other: which one
// was meant cannot be known.
func rewrites(pairs []rewrite) (map[unix.Signal]unix.Signal, error) {
	m := map[unix.Signal]unix.Signal{}
	name := func(sig unix.Signal) string {
		if sig == 0 {
			return "0"
		}
		return signalKind.format(sig)
	}
	for _, r := range pairs {
		if to, ok := m[r.from]; ok && to != r.to {
			return nil, usagef("--%s %s:%s and --%s %s:%s contradict each other: expected one rewrite of %s",
				cmdline.FlagRewrite, name(r.from), name(to), cmdline.FlagRewrite, name(r.from), name(r.to), name(r.from))
		}
		m[r.from] = r.to
	}
	return m, nil
}

var conditionKind = parser[probe.Condition]{kind: kind{name: "condition", expected: probe.Forms + ", such as tcp:127.0.0.1:5432"},
	parse: func(text string) (probe.Condition, string) {
		c, err := probe.Parse(text)
		if err != nil {
			return c, problemOf(err, text)
		}
		return c, ""
	}}

var urlKind = parser[probe.Target]{kind: kind{name: "url", expected: "an http:// URL such as http://127.0.0.1:15020/quitquitquit"},
	parse: func(text string) (probe.Target, string) {
		t, err := probe.ParseURL(text)
		switch {
		case strings.HasPrefix(strings.ToLower(text), "https://"):
			// Not the condition's advice (exec: with a client): a quit
			// URL is called, not probed.
			return t, "https is not supported (tandem stays small and has no TLS)"
		case err != nil:
			return t, problemOf(err, text)
		}
		return t, ""
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
	parse: func(text string) (string, string) {
		if !isName(text) {
			return "", "expected a name such as db-proxy (letters, digits, '-', '_' and '.', at most 253)"
		}
		return text, ""
	}}

// option is a word that a choice accepts, and what it means.
type option[T comparable] struct {
	word  string
	value T
}

// words are options that mean themselves.
func words(ws ...string) []option[string] {
	options := make([]option[string], len(ws))
	for i, w := range ws {
		options[i] = option[string]{w, w}
	}
	return options
}

// choice is one of options' words; a default that is none of them shows
// as nothing.
func choice[T comparable](options ...option[T]) parser[T] {
	last := len(options) - 1
	first := make([]string, last)
	for i, o := range options[:last] {
		first[i] = o.word
	}
	p := parser[T]{kind: kind{name: "choice", expected: strings.Join(first, ", ") + " or " + options[last].word}}
	p.parse = func(text string) (T, string) {
		for _, o := range options {
			if text == o.word {
				return o.value, ""
			}
		}
		var zero T
		return zero, "expected " + p.expected
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

// problemOf is an engine parser's error without the value it starts with
// (`condition "x": `, `rewrite "x": `, `"x": `), which the usage error
// names itself.
func problemOf(err error, text string) string {
	msg := err.Error()
	for _, word := range []string{"condition ", "rewrite ", ""} {
		if rest, ok := strings.CutPrefix(msg, word+strconv.Quote(text)+": "); ok {
			return rest
		}
	}
	return msg
}
