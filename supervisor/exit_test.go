package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		code   int
		logged bool
	}{
		{"nil", nil, 0, false},
		{"usage", UsageError("bad %s", "flag"), ExitUsage, false},
		{"logged exit", &ExitError{Code: 3, Logged: true}, 3, true},
		{"wrapped logged exit", fmt.Errorf("run: %w", &ExitError{Code: 143, Logged: true, Err: errors.New("x")}), 143, true},
		{"timeout", &ExitError{Code: ExitTimeout, Err: errors.New("timed out")}, ExitTimeout, false},
		{"not found", &process.StartError{Name: "x", NotFound: true, Err: exec.ErrNotFound}, 127, false},
		{"wrapped cannot run", fmt.Errorf("start: %w", &process.StartError{Name: "x", Err: fs.ErrPermission}), 126, false},
		{"plain", errors.New("tandem failed"), ExitInternal, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitCode(tt.err); got != tt.code {
				t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.code)
			}
			if got := Logged(tt.err); got != tt.logged {
				t.Errorf("Logged(%v) = %v, want %v", tt.err, got, tt.logged)
			}
		})
	}
}

func TestExitErrorText(t *testing.T) {
	inner := errors.New("--grace \"soon\": not a duration")
	err := error(&ExitError{Code: ExitUsage, Err: inner})
	if err.Error() != inner.Error() || !errors.Is(err, inner) {
		t.Errorf("ExitError{Err: %q}: text %q, unwraps to it %v; want its text and unwrap", inner, err, errors.Is(err, inner))
	}
	if got := (&ExitError{Code: 7}).Error(); got != "exit status 7" {
		t.Errorf("ExitError without Err: %q, want \"exit status 7\"", got)
	}
	usage := UsageError("--stop-when %q: expected any or success", "never")
	if !strings.Contains(usage.Error(), `"never"`) || Logged(usage) {
		t.Errorf("UsageError: %q logged=%v; want the value named and not logged", usage, Logged(usage))
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
