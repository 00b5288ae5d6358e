package main

import (
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// kind is what a flag's value is: what is accepted, said with an example,
// and how one text is read.
type kind struct {
	name     string // what the tests know it by
	expected string // "a duration such as 10s or 500ms", after "expected"
	emptyOK  bool   // "" is a value of its own (--termination-log "" disables)
	// parse returns the value, or why text is not one: a phrase that says
	// what is accepted, else kind.expected is added to it.
	parse func(text string) (value any, problem string)
}

// flagKinds gives every flag its kind (commandKinds may say otherwise for
// one command). A flag missing here panics on first use, and the bad-input
// table test (built from the commands' flags and kindOf) fails until it has
// one.
var flagKinds = map[string]kind{
	cmdline.FlagLogLevel:  choice("debug", "info", "warn", "error"),
	cmdline.FlagLogFormat: choice("json", "console", "auto"),

	cmdline.FlagGrace:          duration(0),
	cmdline.FlagStopSignal:     signalKind,
	cmdline.FlagRewrite:        rewriteKind,
	cmdline.FlagChildOnly:      boolKind,
	cmdline.FlagSuccessCode:    exitCodeKind,
	cmdline.FlagTerminationLog: pathKind("/dev/termination-log", pathRules{emptyOK: true}),
	cmdline.FlagName:           nameKind,

	cmdline.FlagSignalPeers: boolKind,
	cmdline.FlagPeer:        nameKind,
	cmdline.FlagPeerTimeout: duration(time.Nanosecond),
	cmdline.FlagDoneSignal:  signalKind,

	cmdline.FlagWaitFor:      conditionKind,
	cmdline.FlagWaitTimeout:  duration(time.Nanosecond),
	cmdline.FlagWaitInterval: duration(time.Nanosecond),
	cmdline.FlagDoneFile:     pathKind("/run/tandem/done", pathRules{}),
	cmdline.FlagQuitURL:      urlKind,
	// A main only reads a needed ready file: a directory there is the
	// sidecar's problem, as for a watched done file.
	cmdline.FlagNeeds: pathKind("/run/tandem/db-proxy.ready", pathRules{watched: true}),

	cmdline.FlagStopWhen:          choice(cmdline.StopWhenAny, cmdline.StopWhenSuccess),
	cmdline.FlagTerminationSignal: signalKind,
	cmdline.FlagOutliveMain:       duration(0),
	cmdline.FlagReadyWhen:         conditionKind,
	cmdline.FlagReadyFile:         pathKind("/run/tandem/proxy.ready", pathRules{}),
	cmdline.FlagRestart:           choice("never", "on-failure", "always"),
	cmdline.FlagPollInterval:      duration(time.Nanosecond),
	cmdline.FlagStopDelay:         duration(0),
	cmdline.FlagStoppedFile:       pathKind("/run/tandem/proxy.stopped", pathRules{}),
	cmdline.FlagMainStartTimeout:  duration(0),

	cmdline.FlagExitCode: exitCodeKind,

	cmdline.FlagFor:      conditionKind,
	cmdline.FlagTimeout:  duration(0),
	cmdline.FlagInterval: duration(time.Nanosecond),
}

// commandKinds are the flags a command reads as another kind than
// flagKinds says.
var commandKinds = map[string]map[string]kind{
	cmdline.CmdSidecar: {cmdline.FlagDoneFile: pathKind("/run/tandem/done", pathRules{watched: true})},
}

// kindOf is the kind of command's flag called name.
func kindOf(command, name string) (kind, bool) {
	if k, ok := commandKinds[command][name]; ok {
		return k, true
	}
	k, ok := flagKinds[name]
	return k, ok
}

// duration is a time.Duration of at least least: 0 (where 0 means off or
// forever) or a nanosecond (an interval, a timeout that must allow a try).
func duration(least time.Duration) kind {
	k := kind{name: "duration", expected: "a duration such as 10s or 500ms"}
	tooSmall := "expected a duration of 0 or more, such as 10s or 500ms"
	if least > 0 {
		k.name, k.expected = "interval", "a duration above 0, such as 10s or 500ms"
		tooSmall = "expected " + k.expected
	}
	k.parse = func(text string) (any, string) {
		d, err := time.ParseDuration(text)
		switch {
		case err != nil:
			return nil, "expected " + k.expected
		case d < least:
			return nil, tooSmall
		}
		return d, ""
	}
	return k
}

var exitCodeKind = kind{name: "exit code", expected: "an exit code from 0 to 255, such as 0 or 3",
	parse: func(text string) (any, string) {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > exitcode.Max {
			return nil, "expected an exit code from 0 to 255, such as 0 or 3"
		}
		return n, ""
	}}

var boolKind = kind{name: "bool", expected: "true or false",
	parse: func(text string) (any, string) {
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, "expected true or false"
		}
		return b, ""
	}}

var signalKind = kind{name: "signal", expected: "a signal name such as TERM or USR2, or a number from 1 to 64 (not 32 or 33)",
	parse: func(text string) (any, string) {
		sig, err := signals.Parse(text)
		if err != nil {
			return nil, "expected a signal name such as TERM or USR2, or a number from 1 to 64 (not 32 or 33)"
		}
		return sig, ""
	}}

// rewrite is FROM:TO, a pair of signals.
type rewrite struct{ from, to unix.Signal }

var rewriteKind = kind{name: "rewrite", expected: "FROM:TO with signals such as TERM:QUIT, or FROM:0 to drop FROM",
	parse: func(text string) (any, string) {
		from, to, err := signals.ParseRewrite(text)
		if err != nil {
			return nil, problemOf(err, text)
		}
		return rewrite{from, to}, ""
	}}

var conditionKind = kind{name: "condition", expected: probe.Forms + ", such as tcp:127.0.0.1:5432",
	parse: func(text string) (any, string) {
		c, err := probe.Parse(text)
		if err != nil {
			return nil, problemOf(err, text)
		}
		return c, ""
	}}

var urlKind = kind{name: "url", expected: "an http:// URL such as http://127.0.0.1:15020/quitquitquit",
	parse: func(text string) (any, string) {
		t, err := probe.ParseURL(text)
		switch {
		case strings.HasPrefix(strings.ToLower(text), "https://"):
			// Not the condition's advice (exec: with a client): a quit
			// URL is called, not probed.
			return nil, "https is not supported (tandem stays small and has no TLS)"
		case err != nil:
			return nil, problemOf(err, text)
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

var nameKind = kind{name: "name", expected: "a name such as db-proxy (letters, digits, '-', '_' and '.')",
	parse: func(text string) (any, string) {
		if !isName(text) {
			return nil, "expected a name such as db-proxy (letters, digits, '-', '_' and '.', at most 253)"
		}
		return text, ""
	}}

func choice(choices ...string) kind {
	k := kind{name: "choice", expected: strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]}
	k.parse = func(text string) (any, string) {
		for _, c := range choices {
			if text == c {
				return text, ""
			}
		}
		return nil, "expected " + k.expected
	}
	return k
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
