package integration

import (
	"os"
	"strings"
	"testing"
)

// TestRunUsageErrors: a bad flag, value or signal name, a missing CMD or an
// unknown command ends tandem with 2 and a message naming the bad value,
// before anything is started.
func TestRunUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string // before "--" CMD
		noCMD   bool     // the args are the whole command line
		env     []string
		mention string
	}{
		{name: "unknown flag", args: []string{"run", "--no-such-flag"}, mention: "no-such-flag"},
		{name: "stop signal name", args: []string{"run", "--stop-signal", "FOO"}, mention: `"FOO"`},
		{name: "stop signal number", args: []string{"run", "--stop-signal", "99"}, mention: `"99"`},
		{name: "rewrite without TO", args: []string{"run", "--rewrite", "TERM"}, mention: `"TERM"`},
		{name: "rewrite bad TO", args: []string{"run", "--rewrite", "TERM:BOGUS"}, mention: "BOGUS"},
		{name: "rewrite uncatchable FROM", args: []string{"run", "--rewrite", "KILL:TERM"}, mention: "KILL"},
		{name: "grace not a duration", args: []string{"run", "--grace", "soon"}, mention: "soon"},
		{name: "negative grace", args: []string{"run", "--grace", "-1s"}, mention: "-1s"},
		{name: "success code too big", args: []string{"run", "--success-code", "256"}, mention: "256"},
		{name: "success code not a number", args: []string{"run", "--success-code", "ok"}, mention: "ok"},
		{name: "log level", args: []string{"run", "--log-level", "loud"}, mention: "loud"},
		{name: "log format", args: []string{"run", "--log-format", "xml"}, mention: "xml"},
		{name: "bare form stop signal", args: []string{"--stop-signal", "FOO"}, mention: `"FOO"`},
		{name: "stop signal from env", args: []string{"run"}, env: []string{"TANDEM_STOP_SIGNAL=FOO"}, mention: "FOO"},
		{name: "grace from env", args: []string{"run"}, env: []string{"TANDEM_GRACE=soon"}, mention: "soon"},
		{name: "missing CMD", args: []string{"run"}, noCMD: true, mention: "missing CMD"},
		{name: "missing CMD after --", args: []string{"run", "--"}, noCMD: true, mention: "missing CMD"},
		{name: "unknown command", args: []string{"runn"}, noCMD: true, mention: `"runn"`},
		{name: "CMD without --", args: []string{"true"}, noCMD: true, mention: `"true"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			marker := inDir(tempDir(t), "ran")
			args := tt.args
			if !tt.noCMD {
				args = cmdArgs(tt.args, helper("mark", marker))
			}
			code, stdout, stderr := runTandem(t, procOptions{env: tt.env}, args...)
			if code != 2 {
				t.Fatalf("tandem %q exited %d, want 2\nstderr: %s", args, code, stderr)
			}
			if !strings.Contains(stderr, tt.mention) {
				t.Errorf("the message does not name %s:\n%s", tt.mention, stderr)
			}
			if stdout != "" {
				t.Errorf("usage error printed to stdout: %q", stdout)
			}
			if strings.Contains(stderr, "cmd-started") {
				t.Error("CMD was started despite the usage error")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("CMD ran despite the usage error")
			}
		})
	}
}

// TestRunStartFailures: the shell's codes when CMD cannot run: 127 not
// found, 126 found but not executable; the log names CMD.
func TestRunStartFailures(t *testing.T) {
	dir := tempDir(t)
	notExec := inDir(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		cmd  string
		want int
	}{
		{"missing path", inDir(dir, "no-such-program"), 127},
		{"not in PATH", "tandem-no-such-program", 127},
		{"not executable", notExec, 126},
		{"a directory", dir, 126},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startTandem(t, procOptions{}, "run", "--", tt.cmd)
			if code := p.wait(); code != tt.want {
				t.Fatalf("tandem exited %d, want %d", code, tt.want)
			}
			exiting := p.waitEvent("exiting")
			if exiting.Num("exit_code") != tt.want || exiting.Field("reason") != "start-failed" {
				t.Errorf("\"tandem exiting\" logged exit_code %d, reason %q; want %d, start-failed",
					exiting.Num("exit_code"), exiting.Field("reason"), tt.want)
			}
			if !strings.Contains(exiting.Field("error"), tt.cmd) {
				t.Errorf("the error does not name %q: %q", tt.cmd, exiting.Field("error"))
			}
		})
	}
}

// TestRunFlagsBeforeCommand: the supervision flags also parse before the
// command name (they exist there for the bare `tandem [flags] -- CMD`);
// given there, they take effect as if given after it, never silently not.
func TestRunFlagsBeforeCommand(t *testing.T) {
	p := startTandem(t, procOptions{}, cmdArgs([]string{"--success-code", "3", "run"}, helper("exit", "3"))...)
	if code := p.wait(); code != 0 {
		t.Errorf("`tandem --success-code 3 run -- CMD` with CMD exiting 3: tandem exited %d, want 0", code)
	}
	code, _, stderr := runTandem(t, procOptions{}, cmdArgs([]string{"--stop-signal", "FOO", "run"}, helper("exit", "0"))...)
	if code != 2 || !strings.Contains(stderr, "FOO") {
		t.Errorf("`tandem --stop-signal FOO run -- CMD` exited %d, want 2 naming FOO: %s", code, stderr)
	}
	// The innermost one given wins, as for --log-level.
	p = startTandem(t, procOptions{}, cmdArgs([]string{"--success-code", "4", "run", "--success-code", "3"}, helper("exit", "4"))...)
	if code := p.wait(); code != 4 {
		t.Errorf("`tandem --success-code 4 run --success-code 3 -- CMD` with CMD exiting 4: tandem exited %d, want 4", code)
	}
}

// TestRunFlagBeforeCommandBeatsEnv: a flag on the command line wins over its
// TANDEM_<FLAG> variable, given before the command name as well as after it.
func TestRunFlagBeforeCommandBeatsEnv(t *testing.T) {
	env := procOptions{env: []string{"TANDEM_SUCCESS_CODE=4"}}
	for _, args := range [][]string{{"--success-code", "3", "run"}, {"run", "--success-code", "3"}, {"--success-code", "3"}} {
		p := startTandem(t, env, cmdArgs(args, helper("exit", "3"))...)
		if code := p.wait(); code != 0 {
			t.Errorf("TANDEM_SUCCESS_CODE=4 tandem %q -- CMD with CMD exiting 3: tandem exited %d, want 0", args, code)
		}
	}
}
