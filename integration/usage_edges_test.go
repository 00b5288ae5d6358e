package integration

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runPlain runs the built tandem with env and no TANDEM_ variable of the
// harness (its debug level would hide run's own default): code, stdout and
// stderr.
func runPlain(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(tandemBin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TANDEM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestMisconfiguredEntrypoints: a typo of a command, no command, or a bad
// value from the command line or a variable ends tandem with 2 and one line
// naming it; the CMD, which would leave a mark, never runs, and nothing is
// removed.
func TestMisconfiguredEntrypoints(t *testing.T) {
	dir := tempDir(t)
	mark, existing := inDir(dir, "ran"), inDir(dir, "existing")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := helper("mark", mark)
	for _, tt := range []struct {
		name    string
		env     []string
		args    []string
		mention []string
	}{
		{"typo of sidecar", nil, append([]string{"sidcar", "--done-file", inDir(dir, "done"), "--"}, cmd...),
			[]string{`unknown command "sidcar"`, `"sidecar"`}},
		{"nothing", nil, nil, []string{"USAGE:", "missing command"}},
		{"only --", nil, []string{"--"}, []string{"USAGE:", "missing command"}},
		{"only flags", nil, []string{"--grace", "5s"}, []string{"USAGE:", "missing command"}},
		{"grace without unit", nil, append([]string{"run", "--grace", "10", "--"}, cmd...),
			[]string{`--grace "10": expected a duration such as 10s or 500ms`}},
		{"success code", nil, append([]string{"run", "--success-code", "abc", "--"}, cmd...),
			[]string{`--success-code "abc": expected an exit code from 0 to 255`}},
		{"child only from env", []string{"TANDEM_CHILD_ONLY=maybe"}, append([]string{"run", "--"}, cmd...),
			[]string{`TANDEM_CHILD_ONLY "maybe": expected true or false`}},
		{"empty done file", nil, append([]string{"sidecar", "--done-file", "", "--"}, cmd...),
			[]string{`--done-file "": expected a file path`}},
		{"empty done file from env", []string{"TANDEM_DONE_FILE="}, append([]string{"sidecar", "--"}, cmd...),
			[]string{`TANDEM_DONE_FILE "": expected a file path`}},
		{"done file is a directory", nil, append([]string{"main", "--done-file", existing, "--"}, cmd...),
			[]string{"is a directory"}},
		{"stopped file is the done file", nil, append([]string{"sidecar", "--done-file", inDir(dir, "d"),
			"--stopped-file", dir + "/./d", "--"}, cmd...), []string{"is also a --done-file"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runPlain(t, tt.env, tt.args...)
			if code != 2 {
				t.Fatalf("tandem %q exited %d, want 2\n%s", tt.args, code, stderr)
			}
			for _, m := range tt.mention {
				if !strings.Contains(stderr, m) {
					t.Errorf("stderr does not say %q:\n%s", m, stderr)
				}
			}
			for _, word := range []string{"strconv", "parse error", "invalid value", "for flag -"} {
				if strings.Contains(stderr, word) {
					t.Errorf("Go's parser text %q reached the user:\n%s", word, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("printed to stdout: %q", stdout)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Error("CMD ran")
			}
			if info, err := os.Stat(existing); err != nil || !info.IsDir() {
				t.Errorf("the directory is gone: %v", err)
			}
		})
	}
}

// TestHelpExits0: asking for the help is a success, on stdout.
func TestHelpExits0(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"run", "--help"}} {
		if code, stdout, _ := runPlain(t, nil, args...); code != 0 || !strings.Contains(stdout, "USAGE:") {
			t.Errorf("tandem %q exited %d printing %q; want 0 and the help", args, code, stdout)
		}
	}
}

// TestRunIsQuiet: run says nothing when all goes well, as tini; a CMD
// killed by a signal is a warning.
func TestRunIsQuiet(t *testing.T) {
	for _, args := range [][]string{{"run", "--"}, {"--"}} {
		code, _, stderr := runPlain(t, []string{"TANDEM_LOG_FORMAT=json"}, append(args, helper("exit", "0")...)...)
		if code != 0 || stderr != "" {
			t.Errorf("tandem %q exited %d printing %q; want 0 and nothing", args, code, stderr)
		}
	}
	code, _, stderr := runPlain(t, []string{"TANDEM_LOG_FORMAT=json"}, append([]string{"run", "--"}, helper("die-of", "15")...)...)
	if code != 143 || !strings.Contains(stderr, `"level":"warn"`) || !strings.Contains(stderr, `"event":"cmd-exited"`) ||
		!strings.Contains(stderr, `"signal":"SIGTERM"`) {
		t.Errorf("CMD killed by SIGTERM: exit %d, logged %q; want 143 and a warning naming the signal", code, stderr)
	}
}
