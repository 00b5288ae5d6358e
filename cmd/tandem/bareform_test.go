package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/exitcode"
)

// TestBareFormIsExact: the bare form is `tandem [run flags] -- CMD` and
// nothing else. A first word that is not a command is a typo of one, even
// with a `--` after it; no command and no CMD print the usage on stderr and
// exit 2; asking for the help is a success.
func TestBareFormIsExact(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		code    int
		mention []string
	}{
		{"typo of a command before --", []string{"sidcar", "--done-file", "F", "--", "proxy"}, 2,
			[]string{`unknown command "sidcar"`, `did you mean "sidecar"?`}},
		{"typo of main", []string{"mian", "--done-file", "F", "--", "job"}, 2, []string{`did you mean "main"?`}},
		{"program without --", []string{"true"}, 2, []string{`unknown command "true"`, "tandem -- CMD"}},
		{"flags then a program", []string{"--grace", "5s", "true", "--", "x"}, 2, []string{`unknown command "true"`}},
		{"nothing", nil, 2, []string{"USAGE:", "missing command"}},
		{"only --", []string{"--"}, 2, []string{"USAGE:", "missing command"}},
		{"only run flags", []string{"--grace", "5s"}, 2, []string{"USAGE:", "missing command"}},
		{"only global flags", []string{"--log-level", "debug"}, 2, []string{"USAGE:", "missing command"}},
		{"help flag", []string{"--help"}, 0, nil},
		{"help command", []string{"help"}, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, stderr, err := runApp(t, nil, tt.args...)
			stderr += captureStderr(t, func() { exit(err) })
			if code := exitcode.Of(err); code != tt.code {
				t.Fatalf("tandem %q: %v, exit %d; want %d\n%s", tt.args, err, code, tt.code, stderr)
			}
			for _, m := range tt.mention {
				if !strings.Contains(stderr, m) {
					t.Errorf("stderr does not say %q:\n%s", m, stderr)
				}
			}
			if got.cfg != nil {
				t.Errorf("CMD %q was run", got.cfg.Command)
			}
		})
	}
}

// TestBareFormRunsCMD: after `--`, every word is CMD's, a command's name too.
func TestBareFormRunsCMD(t *testing.T) {
	for _, args := range [][]string{{"--", "sidcar"}, {"--", "sidecar", "--", "x"}, {"--grace", "5s", "--", "main"}} {
		got := mustRunApp(t, nil, args...)
		if want := args[slices.Index(args, "--")+1:]; got.cfg == nil || !slices.Equal(got.cfg.Command, want) {
			t.Errorf("tandem %q ran %+v, want CMD %q", args, got.cfg, want)
		}
	}
}
