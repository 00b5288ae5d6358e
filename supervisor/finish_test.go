package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// TestRunRefusesAnInvalidConfig: a config Validate refuses is a usage error
// (exit 2, not logged: main prints it), before anything starts.
func TestRunRefusesAnInvalidConfig(t *testing.T) {
	cfg := Defaults(ModeRun) // no CMD
	err := Run(context.Background(), cfg)
	if ExitCode(err) != ExitUsage || Logged(err) || !strings.Contains(err.Error(), "missing CMD") {
		t.Errorf("Run without CMD: %v (code %d, logged %v), want exit 2 naming the missing CMD, not logged",
			err, ExitCode(err), Logged(err))
	}
}

// TestEndingOutcome: how CMD ended becomes tandem's code and reason.
func TestEndingOutcome(t *testing.T) {
	boom := errors.New("cannot write the ready file")
	tests := []struct {
		name    string
		success []int
		end     ending
		want    outcome
	}{
		{"exit 0", nil, ending{}, outcome{code: 0, reason: statusfile.ReasonExited}},
		{"exit 3", nil, ending{status: process.Status{Code: 3}}, outcome{code: 3, reason: statusfile.ReasonExited}},
		{"exit 3 is a success", []int{3}, ending{status: process.Status{Code: 3}}, outcome{code: 0, reason: statusfile.ReasonExited}},
		{"killed", nil, ending{status: process.Status{Signal: unix.SIGTERM}},
			outcome{code: 143, reason: statusfile.ReasonSignaled, signal: "SIGTERM"}},
		{"killed, declared a success", []int{143}, ending{status: process.Status{Signal: unix.SIGTERM}},
			outcome{code: 0, reason: statusfile.ReasonSignaled, signal: "SIGTERM"}},
		{"requested stop", nil, ending{requested: true, status: process.Status{Code: 1}}, outcome{code: 0, reason: statusfile.ReasonStopped}},
		{"requested stop, needed SIGKILL", nil, ending{requested: true, status: process.Status{Signal: unix.SIGKILL}},
			outcome{code: 0, reason: statusfile.ReasonStopped}},
		{"tandem failed", nil, ending{err: boom, status: process.Status{Code: 0}}, outcome{code: ExitInternal, reason: "error", err: boom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig(ModeSidecar)
			cfg.SuccessCodes = tt.success
			e := newEngine(cfg, world{}, nil)
			if got := e.endingOutcome(tt.end); got != tt.want {
				t.Errorf("endingOutcome(%+v) = %+v, want %+v", tt.end, got, tt.want)
			}
		})
	}
	if got := interrupted(unix.SIGINT); got.code != 130 || got.reason != statusfile.ReasonInterrupted || got.signal != "SIGINT" {
		t.Errorf("interrupted(SIGINT) = %+v, want 130, interrupted, SIGINT", got)
	}
}

// TestFinish: Run's result is nil for 0, else an ExitError with the code,
// marked logged (the exiting line), and the termination log says why.
func TestFinish(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name string
		out  outcome
	}{
		{"success", outcome{code: 0, reason: statusfile.ReasonExited}},
		{"killed", outcome{code: 137, reason: statusfile.ReasonSignaled, signal: "SIGKILL"}},
		{"failed", outcome{code: 125, reason: "error", err: boom}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "termination-log")
			if err := os.WriteFile(path, []byte("an older, longer record that must not survive\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := validConfig(ModeMain)
			cfg.Name, cfg.TerminationLog, cfg.Log = "job", path, zerolog.Nop()
			err := newEngine(cfg, world{}, nil).finish(tt.out)
			if ExitCode(err) != tt.out.code || (err != nil) != (tt.out.code != 0) || (err != nil && !Logged(err)) {
				t.Errorf("finish: %v (code %d, logged %v), want code %d, logged", err, ExitCode(err), Logged(err), tt.out.code)
			}
			if tt.out.err != nil && !errors.Is(err, tt.out.err) {
				t.Errorf("finish: %v does not wrap %v", err, tt.out.err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var rec terminationRecord
			if strings.Count(string(data), "\n") != 1 || json.Unmarshal(data, &rec) != nil {
				t.Fatalf("termination log %q, want one JSON line", data)
			}
			want := terminationRecord{Name: "job", Mode: "main", ExitCode: tt.out.code, Reason: tt.out.reason, Signal: tt.out.signal}
			if tt.out.err != nil {
				want.Error = tt.out.err.Error()
			}
			if rec.Time.IsZero() {
				t.Error("termination log without a time")
			}
			rec.Time = want.Time
			if rec != want {
				t.Errorf("termination log %+v, want %+v", rec, want)
			}
		})
	}
}
