package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
)

// TestUsageErrors: a bad flag, value or variable of any command is exit 2
// with a message naming it, and nothing is handed to the supervisor.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name    string
		env     map[string]string
		args    []string
		mention string
	}{
		{"unknown flag", nil, []string{"run", "--no-such-flag", "--", "x"}, "no-such-flag"},
		{"grace not a duration", nil, []string{"run", "--grace", "soon", "--", "x"}, "soon"},
		{"grace from env", map[string]string{"TANDEM_GRACE": "soon"}, []string{"run", "--", "x"}, "soon"},
		{"grace from env, bare form", map[string]string{"TANDEM_GRACE": "soon"}, []string{"--", "x"}, "soon"},
		{"stop signal", nil, []string{"run", "--stop-signal", "FOO", "--", "x"}, `"FOO"`},
		{"stop signal from env", map[string]string{"TANDEM_STOP_SIGNAL": "FOO"}, []string{"run", "--", "x"}, "FOO"},
		{"stop signal before run", nil, []string{"--stop-signal", "FOO", "run", "--", "x"}, `"FOO"`},
		{"stop signal bare form", nil, []string{"--stop-signal", "99", "--", "x"}, `"99"`},
		{"rewrite without TO", nil, []string{"run", "--rewrite", "TERM", "--", "x"}, `"TERM"`},
		{"rewrite uncatchable FROM", nil, []string{"run", "--rewrite", "KILL:TERM", "--", "x"}, "KILL"},
		{"rewrite from env", map[string]string{"TANDEM_REWRITE": "TERM:BOGUS"}, []string{"run", "--", "x"}, "BOGUS"},
		{"rewrites that contradict", nil, []string{"run", "--rewrite", "TERM:QUIT", "--rewrite", "TERM:INT", "--", "x"},
			"--rewrite TERM:QUIT and --rewrite TERM:INT contradict each other"},
		{"rewrites that contradict, one list", map[string]string{"TANDEM_REWRITE": "TERM:0,TERM:INT"}, []string{"sidecar", "--", "x"}, "contradict"},
		{"version with an argument", nil, []string{"version", "extra"}, `unexpected argument "extra"`},
		{"success code not a number", nil, []string{"run", "--success-code", "ok", "--", "x"}, "ok"},
		{"log level", nil, []string{"run", "--log-level", "loud", "--", "x"}, "loud"},
		{"log level from env", map[string]string{"TANDEM_LOG_LEVEL": "trace"}, []string{"run", "--", "x"}, "trace"},
		{"log format", nil, []string{"sidecar", "--log-format", "xml", "--", "x"}, "xml"},
		{"unknown command", nil, []string{"runn"}, `"runn"`},
		{"CMD without --", nil, []string{"true"}, `"true"`},

		{"sidecar done signal", nil, []string{"sidecar", "--done-signal", "FOO", "--", "x"}, "FOO"},
		{"sidecar termination signal", nil, []string{"sidecar", "--termination-signal", "FOO", "--", "x"}, "FOO"},
		{"sidecar stop when", nil, []string{"sidecar", "--stop-when", "never", "--", "x"}, `"never"`},
		{"sidecar restart", nil, []string{"sidecar", "--restart", "sometimes", "--", "x"}, `"sometimes"`},
		{"sidecar restart from env", map[string]string{"TANDEM_RESTART": "sometimes"}, []string{"sidecar", "--", "x"}, "sometimes"},
		{"sidecar https quit url", nil, []string{"sidecar", "--quit-url", "https://h/q", "--", "x"}, "https://h/q"},
		{"sidecar ready when", nil, []string{"sidecar", "--ready-when", "nope:x", "--", "x"}, "nope:x"},
		{"sidecar poll interval", nil, []string{"sidecar", "--poll-interval", "often", "--", "x"}, "often"},
		{"sidecar restart window without a budget", nil, []string{"sidecar", "--restart-window", "5m", "--", "x"},
			"--restart-window 5m0s: has no effect without --max-restarts"},
		{"sidecar restart window without a limit", map[string]string{"TANDEM_RESTART_WINDOW": "1h"},
			[]string{"sidecar", "--restart", "always", "--max-restarts", "0", "--", "x"}, "--restart-window 1h0m0s: has no effect without --max-restarts"},

		{"main wait for", nil, []string{"main", "--wait-for", "bogus:x", "--", "x"}, "bogus:x"},
		{"main wait for from env", map[string]string{"TANDEM_WAIT_FOR": "tcp:nohost"}, []string{"main", "--", "x"}, "tcp:nohost"},
		{"main wait timeout", nil, []string{"main", "--wait-timeout", "soon", "--", "x"}, "soon"},
		{"main quit url", nil, []string{"main", "--quit-url", "ftp://h/q", "--", "x"}, "ftp://h/q"},
		{"main done signal", nil, []string{"main", "--done-signal", "FOO", "--", "x"}, "FOO"},
		{"main peer timeout", nil, []string{"main", "--peer-timeout", "soon", "--", "x"}, "soon"},

		{"done argument", nil, []string{"done", "extra"}, `"extra"`},
		{"done exit code", nil, []string{"done", "--exit-code", "x"}, `"x"`},
		{"done done signal", nil, []string{"done", "--file", "/f", "--done-signal", "FOO"}, "FOO"},
		{"done bad flag", nil, []string{"done", "--bogus"}, "bogus"},
		{"wait argument", nil, []string{"wait", "file:/x"}, `"file:/x"`},
		{"wait condition", nil, []string{"wait", "--for", "nope:x"}, "nope:x"},
		{"wait interval from env", map[string]string{"TANDEM_INTERVAL": "often"}, []string{"wait", "--for", "file:/x"}, "often"},
		{"wait bad flag", nil, []string{"wait", "--bogus"}, "bogus"},
		{"install no dir", nil, []string{"install"}, "got 0 arguments"},
		{"install empty dir", nil, []string{"install", ""}, `DIR "": expected`},
		{"install two dirs", nil, []string{"install", dir, dir}, "got 2 arguments"},
		{"install bad flag", nil, []string{"install", "--bogus", dir}, "bogus"},
		{"version bad flag", nil, []string{"version", "--bogus"}, "bogus"},
		{"sidecar bad flag", nil, []string{"sidecar", "--bogus", "--", "x"}, "bogus"},
		{"main bad flag", nil, []string{"main", "--bogus", "--", "x"}, "bogus"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := runApp(t, tt.env, tt.args...)
			if code := exitcode.Of(err); code != exitcode.Usage {
				t.Fatalf("tandem %q: %v (exit %d), want exit 2", tt.args, err, code)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("the error %q does not name %s", err, tt.mention)
			}
			if exitcode.Logged(err) {
				t.Error("a usage error is marked logged: main would not print it")
			}
			if got.cfg != nil || got.done != nil || got.wait != nil {
				t.Error("the command ran despite the usage error")
			}
		})
	}
}

// TestUncatchableSignalsNameTheirSource: a signal a flag cannot take is
// refused where it was given, the variable or the flag, with the text as
// given, not as tandem would write it (SIGKILL).
func TestUncatchableSignalsNameTheirSource(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"TANDEM_TERMINATION_SIGNAL": "KILL"}, []string{"sidecar", "--", "x"}, `TANDEM_TERMINATION_SIGNAL "KILL": expected a catchable signal`},
		{map[string]string{"TANDEM_TERMINATION_SIGNAL": "kill"}, []string{"main", "--", "x"}, `TANDEM_TERMINATION_SIGNAL "kill": expected a catchable signal`},
		{nil, []string{"sidecar", "--termination-signal", "9", "--", "x"}, `--termination-signal "9": expected a catchable signal`},
		{map[string]string{"TANDEM_DONE_SIGNAL": "TERM"}, []string{"sidecar", "--", "x"}, `TANDEM_DONE_SIGNAL "TERM": expected a catchable signal other than TERM`},
		{nil, []string{"main", "--done-signal", "SIGTERM", "--", "x"}, `--done-signal "SIGTERM": expected a catchable signal other than TERM`},
		{nil, []string{"done", "--file", "/f", "--done-signal", "STOP"}, `--done-signal "STOP": expected a catchable signal other than TERM`},
	} {
		got, _, err := runApp(t, tt.env, tt.args...)
		if code := exitcode.Of(err); code != exitcode.Usage || !strings.HasPrefix(fmt.Sprint(err), tt.want) || got.cfg != nil {
			t.Errorf("%v tandem %q: exit %d, %v; want exit 2, nothing run, %s", tt.env, tt.args, code, err, tt.want)
		}
	}
}

// TestEveryFlagHasItsVariable: each flag of each command reads TANDEM_<FLAG>,
// at the app level for the flags the app defines too (see withGlobals).
func TestEveryFlagHasItsVariable(t *testing.T) {
	app := newApp()
	appEnv := map[string][]string{}
	for _, f := range app.Flags {
		appEnv[f.Names()[0]] = f.(cli.DocGenerationFlag).GetEnvVars()
	}
	for name, env := range appEnv {
		if !slices.Equal(env, []string{cmdline.EnvVar(name)}) {
			t.Errorf("tandem --%s reads %q, want %s", name, env, cmdline.EnvVar(name))
		}
	}
	for _, cmd := range app.Commands {
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			env := f.(cli.DocGenerationFlag).GetEnvVars()
			if _, atAppLevel := appEnv[name]; atAppLevel {
				if len(env) != 0 {
					t.Errorf("tandem %s --%s reads %q at the command level too: it would hide the flag given before %q",
						cmd.Name, name, env, cmd.Name)
				}
				continue
			}
			if !slices.Equal(env, []string{cmdline.EnvVar(name)}) {
				t.Errorf("tandem %s --%s reads %q, want %s", cmd.Name, name, env, cmdline.EnvVar(name))
			}
		}
	}
}
