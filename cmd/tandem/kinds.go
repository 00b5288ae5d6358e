package main

import (
	"errors"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// The kinds of value of internal/cmdline, and these two, which the
// engine's probe parses.

var conditionKind = cmdline.Parser[probe.Condition]{
	Kind: cmdline.Kind{Name: "condition", Expected: probe.Forms + ", such as tcp:127.0.0.1:5432"},
	Parse: func(text string) (probe.Condition, error) {
		c, err := probe.Parse(text)
		return c, cmdline.Problem(err, text)
	}}

var urlKind = cmdline.Parser[probe.Target]{
	Kind: cmdline.Kind{Name: "url", Expected: "an http:// URL such as http://127.0.0.1:15020/quitquitquit"},
	Parse: func(text string) (probe.Target, error) {
		if strings.HasPrefix(strings.ToLower(text), "https://") {
			// Not the condition's advice (exec: with a client): a quit
			// URL is called, not probed.
			return probe.Target{}, errors.New("https is not supported (tandem stays small and has no TLS)")
		}
		t, err := probe.ParseURL(text)
		return t, cmdline.Problem(err, text)
	}}
