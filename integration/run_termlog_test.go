package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRunTerminationLog: --termination-log PATH gets one JSON line saying
// why tandem ended, which Kubernetes shows in `kubectl describe pod`.
func TestRunTerminationLog(t *testing.T) {
	dir := tempDir(t)
	for _, tt := range []struct {
		name       string
		flags      []string
		cmd        []string
		wantCode   int
		wantReason string
		wantSignal string
	}{
		{"exited", nil, helper("exit", "3"), 3, "exited", ""},
		{"success code", []string{"--success-code", "3"}, helper("exit", "3"), 0, "exited", ""},
		{"signaled", nil, helper("die-of", "9"), 137, "signaled", "SIGKILL"},
		{"start failed", nil, []string{inDir(dir, "no-such-program")}, 127, "start-failed", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := inDir(tempDir(t), "termination-log")
			flags := append([]string{"run", "--termination-log", path}, tt.flags...)
			p := startTandem(t, procOptions{}, cmdArgs(flags, tt.cmd)...)
			if code := p.wait(); code != tt.wantCode {
				t.Fatalf("tandem exited %d, want %d", code, tt.wantCode)
			}
			text := waitFile(t, path)
			if lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n"); len(lines) != 1 {
				t.Fatalf("termination log has %d lines, want 1: %q", len(lines), text)
			}
			var rec struct {
				Mode     string
				ExitCode *int
				Reason   string
				Signal   string
				Time     time.Time
			}
			if err := json.Unmarshal([]byte(text), &rec); err != nil {
				t.Fatalf("termination log is not JSON: %v: %q", err, text)
			}
			if rec.ExitCode == nil || *rec.ExitCode != tt.wantCode || rec.Reason != tt.wantReason || rec.Signal != tt.wantSignal {
				t.Errorf("termination log %s; want exitCode %d, reason %q, signal %q", text, tt.wantCode, tt.wantReason, tt.wantSignal)
			}
			if rec.Mode != "run" || rec.Time.IsZero() {
				t.Errorf("termination log %s; want mode run and a time", text)
			}
		})
	}
}
