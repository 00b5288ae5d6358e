package integration

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
)

// TestRunStdio: CMD reads tandem's stdin and writes tandem's stdout, byte for
// byte; tandem's own log lines (debug level here) go to stderr only.
func TestRunStdio(t *testing.T) {
	var input bytes.Buffer
	input.WriteString("first line\nsecond line\n")
	for b := range 256 {
		input.WriteByte(byte(b)) // every byte value, none of them special
	}
	input.WriteString("\nno newline at the end")
	p := startTandem(t, procOptions{stdin: bytes.NewReader(input.Bytes())}, cmdArgs([]string{"run"}, helper("cat"))...)
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want 0", code)
	}
	if got := p.Stdout(); got != input.String() {
		t.Fatalf("stdout is not exactly CMD's output:\ngot  %q\nwant %q", got, input.String())
	}
	if !p.hasEvent("cmd-started") || !p.hasEvent("exiting") {
		t.Fatalf("tandem's log lines are not on stderr: %q", p.rawLines())
	}
}

// TestRunLogsOnStderrOnly: with a signal forwarded (a debug line) and CMD
// silent, stdout stays empty.
func TestRunLogsOnStderrOnly(t *testing.T) {
	out := inDir(tempDir(t), "signals")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"run"}, helper("record-signals", out, "10"))...)
	runKillGroupOnFailure(t, p, false)
	waitLines(t, out, 1)
	p.signal(syscall.SIGUSR1)
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want 0", code)
	}
	p.waitEvent("signal-forwarded")
	if got := p.Stdout(); got != "" {
		t.Fatalf("tandem wrote to stdout: %q", got)
	}
	for _, raw := range p.rawLines() {
		if !strings.HasPrefix(raw, "{") {
			t.Errorf("stderr line is not one of tandem's JSON log lines: %q", raw)
		}
	}
}
