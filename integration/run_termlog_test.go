package integration

import (
	"encoding/json"
	"os"
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

// A program that writes its own termination message keeps it: Argo's
// argoexec says there why a step failed, and its controller shows that
// message; tandem's reason stays in its log (termination-log-kept). A
// record tandem left there before is written over.
func TestRunTerminationLogKeepsProgramMessage(t *testing.T) {
	for _, tt := range []struct {
		name, before, want string
	}{
		{"program's message", "", "upload failed: EOF\n"},
		{"an old record of tandem's", `{"mode":"run","exitCode":0,"reason":"exited"}` + "\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := inDir(tempDir(t), "termination-log")
			if tt.before != "" {
				mustDo(t, os.WriteFile(path, []byte(tt.before), 0o644))
			}
			script := "exit 64"
			if tt.want != "" {
				script = "echo 'upload failed: EOF' >" + path + "; exit 64"
			}
			p := startTandem(t, procOptions{}, cmdArgs([]string{"run", "--termination-log", path}, []string{"sh", "-c", script})...)
			if code := p.wait(); code != 64 {
				t.Fatalf("tandem exited %d, want 64", code)
			}
			text := waitFile(t, path)
			if tt.want != "" {
				if text != tt.want {
					t.Fatalf("termination log %q; want the program's own %q", text, tt.want)
				}
				if !p.hasEvent("termination-log-kept") {
					t.Errorf("no termination-log-kept event:\n%s", strings.Join(p.rawLines(), "\n"))
				}
				return
			}
			if !strings.Contains(text, `"exitCode":64`) {
				t.Fatalf("termination log %q; want tandem's record (exitCode 64) over the old one", text)
			}
		})
	}
}
