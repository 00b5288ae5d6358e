package integration

import (
	"strings"
	"testing"
)

// An explicit --termination-log that cannot be written is a warning naming
// it, with its event, and tandem's exit code is still CMD's. (The default
// path, absent, is skipped without a word: fault_readonly_test.go.)
func TestRunTerminationLogUnwritable(t *testing.T) {
	t.Parallel()
	path := inDir(inDir(tempDir(t), "no-such-dir"), "termination-log")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"run", "--termination-log", path}, helper("exit", "3"))...)
	if code := p.wait(); code != 3 {
		t.Fatalf("tandem exited %d, want CMD's 3", code)
	}
	warning := p.waitEvent("termination-log-failed")
	if warning.Field("level") != "warn" || warning.Field("path") != path || !strings.Contains(warning.Field("error"), "no such file or directory") {
		t.Errorf("warning %v: want level warn naming %s and the cause", warning, path)
	}
}
