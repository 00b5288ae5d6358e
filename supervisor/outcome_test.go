package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// TestRunRefusesAnInvalidConfig: a config Validate refuses is a usage error
// (exit 2, not logged: main prints it), before anything starts.
func TestRunRefusesAnInvalidConfig(t *testing.T) {
	cfg := Defaults(ModeRun) // no CMD
	err := Run(context.Background(), cfg)
	if exitcode.Of(err) != exitcode.Usage || exitcode.Logged(err) || !strings.Contains(err.Error(), "missing CMD") {
		t.Errorf("Run without CMD: %v (code %d, logged %v), want exit 2 naming the missing CMD, not logged",
			err, exitcode.Of(err), exitcode.Logged(err))
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
		{"tandem failed", nil, ending{err: boom, status: process.Status{Code: 0}}, outcome{code: exitcode.Internal, reason: "error", err: boom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig(ModeSidecar)
			cfg.SuccessCodes = tt.success
			if got := endingOutcome(cfg.Log, tt.end, cfg.SuccessCodes); got != tt.want {
				t.Errorf("endingOutcome(%+v) = %+v, want %+v", tt.end, got, tt.want)
			}
		})
	}
	if got := interrupted(unix.SIGINT); got.code != 130 || got.reason != statusfile.ReasonInterrupted || got.signal != "SIGINT" {
		t.Errorf("interrupted(SIGINT) = %+v, want 130, interrupted, SIGINT", got)
	}
}

func TestReasonOf(t *testing.T) {
	tests := []struct {
		st   process.Status
		want string
	}{
		{process.Status{}, statusfile.ReasonExited},
		{process.Status{Code: 3}, statusfile.ReasonExited},
		{process.Status{Signal: unix.SIGKILL}, statusfile.ReasonSignaled},
		{process.Status{Signal: unix.SIGTERM}, statusfile.ReasonSignaled},
	}
	for _, tt := range tests {
		if got := reasonOf(tt.st); got != tt.want {
			t.Errorf("reasonOf(%+v) = %q, want %q", tt.st, got, tt.want)
		}
	}
}

func TestReportedCode(t *testing.T) {
	tests := []struct {
		code    int
		success []int
		want    int
	}{
		{0, nil, 0},
		{1, nil, 1},
		{1, []int{1}, 0},
		{3, []int{1, 2}, 3},
		{143, []int{143}, 0}, // a death by SIGTERM declared a success
		{2, []int{1, 2, 3}, 0},
	}
	for _, tt := range tests {
		if got := reportedCode(tt.code, tt.success); got != tt.want {
			t.Errorf("reportedCode(%d, %v) = %d, want %d", tt.code, tt.success, got, tt.want)
		}
	}
}
