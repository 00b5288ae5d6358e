package main

import (
	"strings"
	"testing"
)

// Every command's usage errors exit 2 with one line that names the flag
// (or variable), the value and what is accepted, and write nothing else.
func TestUsageErrorsOneLine(t *testing.T) {
	const duration = "expected a duration such as 10s, 1m or 1h30m"
	tests := []struct {
		args []string
		env  string // NAME=value, or ""
		want string
	}{
		{[]string{"inject", "--bogus"}, "", "unknown flag --bogus for tandemctl inject: see `tandemctl inject --help`"},
		{[]string{"webhook", "--bogus"}, "", "unknown flag --bogus for tandemctl webhook: see `tandemctl webhook --help`"},
		{[]string{"check", "--bogus"}, "", "unknown flag --bogus for tandemctl check: see `tandemctl check --help`"},
		{[]string{"version", "--bogus"}, "", "unknown flag --bogus for tandemctl version: see `tandemctl version --help`"},
		{[]string{"--bogus"}, "", "unknown flag --bogus for tandemctl: see `tandemctl --help`"},
		{[]string{"check", "-x"}, "", "unknown flag -x for tandemctl check: see `tandemctl check --help`"},
		{[]string{"injekt"}, "", "unknown command \"injekt\": expected inject, webhook, policy, check, presets, version or help (see `tandemctl --help`)"},
		{[]string{"help", "injekt"}, "", "unknown command \"injekt\": expected inject, webhook, policy, check, presets, version or help (see `tandemctl --help`)"},
		{[]string{"presets", "-o", "json", "--output", "text"}, "", "--output and -o are two names of one flag: expected only one of them"},
		{[]string{"check", "--namespace", "a", "-n", "b"}, "", "--namespace and -n are two names of one flag: expected only one of them"},
		{[]string{"version", "extra"}, "", `version takes no arguments, got ["extra"]`},
		{[]string{"inject", "--lookup-timeout", "soon"}, "", `--lookup-timeout "soon": ` + duration},
		{[]string{"inject", "--lookup-timeout", "0s"}, "", `--lookup-timeout "0s": expected a positive duration, e.g. 10s or 1m`},
		{[]string{"webhook", "--lookup-timeout", "-1s"}, "", `--lookup-timeout "-1s": expected a positive duration, e.g. 10s or 1m`},
		{[]string{"webhook", "--shutdown-delay", "x"}, "", `--shutdown-delay "x": ` + duration},
		{[]string{"webhook", "--cache-size", "many"}, "", `--cache-size "many": expected a whole number such as 1024`},
		{[]string{"check", "--stuck-after", "1"}, "", `--stuck-after "1": ` + duration},
		{[]string{"check", "-A=maybe"}, "", `-A "maybe": expected true or false`},
		{[]string{"inject", "--image"}, "", "--image needs a value: expected a value (see `tandemctl inject --help`)"},
		{[]string{"inject"}, "TANDEMCTL_LOOKUP_TIMEOUT=10", `TANDEMCTL_LOOKUP_TIMEOUT="10" (--lookup-timeout): ` + duration},
		{[]string{"webhook"}, "TANDEMCTL_CACHE_SIZE=x", `TANDEMCTL_CACHE_SIZE="x" (--cache-size): expected a whole number such as 1024`},
		{[]string{"check"}, "TANDEMCTL_STUCK_AFTER=later", `TANDEMCTL_STUCK_AFTER="later" (--stuck-after): ` + duration},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" "+tt.env, func(t *testing.T) {
			if name, value, ok := strings.Cut(tt.env, "="); ok {
				t.Setenv(name, value)
			}
			out, stderr, code := run(t, "", tt.args...)
			if code != 2 || out != "" || stderr != "tandemctl: "+tt.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant exit 2, no stdout, stderr %q", code, out, "tandemctl: "+tt.want+"\n", stderr)
			}
		})
	}
}

// help names every command, and each command's flags.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "inject"}, {"inject", "--help"}, {"h", "check"}} {
		out, stderr, code := run(t, "", args...)
		if code != 0 || stderr != "" || !strings.Contains(out, "USAGE:") {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want help on stdout", args, code, stderr, out)
		}
	}
	if out, _, _ := run(t, "", "help", "inject"); !strings.Contains(out, "--lookup-timeout") {
		t.Errorf("help inject lacks --lookup-timeout:\n%s", out)
	}
}
