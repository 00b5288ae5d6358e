package integration

import (
	"strings"
	"testing"
)

// TestUsageErrorsExit2: a bad flag of any command, and a bad value of the
// commands that take no CMD, ends tandem with 2 (not 125), one line on
// stderr naming it; an unknown flag's line points at the command's help.
func TestUsageErrorsExit2(t *testing.T) {
	dir := tempDir(t)
	for _, tt := range []struct {
		name    string
		args    []string
		mention string
	}{
		{"version", []string{"version", "--bogus"}, "bogus"},
		{"done", []string{"done", "--bogus"}, "bogus"},
		{"wait", []string{"wait", "--bogus"}, "bogus"},
		{"install", []string{"install", "--bogus", dir}, "bogus"},
		{"run", []string{"run", "--bogus", "--", "true"}, "bogus"},
		{"sidecar", []string{"sidecar", "--bogus", "--", "true"}, "bogus"},
		{"main", []string{"main", "--bogus", "--", "true"}, "bogus"},
		{"bare", []string{"--bogus", "--", "true"}, "bogus"},
		{"done exit code", []string{"done", "--file", inDir(dir, "done"), "--exit-code", "many"}, "many"},
		{"done argument", []string{"done", "extra"}, "extra"},
		{"wait condition", []string{"wait", "--for", "nope:x"}, "nope:x"},
		{"wait interval", []string{"wait", "--for", "file:/x", "--interval", "often"}, "often"},
		{"install no dir", []string{"install"}, "DIR"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runTandem(t, procOptions{}, tt.args...)
			if code != 2 {
				t.Fatalf("tandem %q exited %d, want 2\nstderr: %s", tt.args, code, stderr)
			}
			if !strings.Contains(stderr, tt.mention) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("the message is not one line naming %s:\n%s", tt.mention, stderr)
			}
			if tt.mention == "bogus" && !strings.Contains(stderr, "--help`") {
				t.Errorf("an unknown flag's line does not point at the help:\n%s", stderr)
			}
			if stdout != "" {
				t.Errorf("usage error printed to stdout: %q", stdout)
			}
		})
	}
}
