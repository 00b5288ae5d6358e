package exitcode_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/process"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		code   int
		logged bool
	}{
		{"nil", nil, 0, false},
		{"usage", exitcode.Usagef("bad %s", "flag"), exitcode.Usage, false},
		{"logged exit", &exitcode.Error{Code: 3, Logged: true}, 3, true},
		{"wrapped logged exit", fmt.Errorf("run: %w", &exitcode.Error{Code: 143, Logged: true, Err: errors.New("x")}), 143, true},
		{"timeout", &exitcode.Error{Code: exitcode.Timeout, Err: errors.New("timed out")}, exitcode.Timeout, false},
		{"not found", &process.StartError{Name: "x", NotFound: true, Err: exec.ErrNotFound}, 127, false},
		{"wrapped cannot run", fmt.Errorf("start: %w", &process.StartError{Name: "x", Err: fs.ErrPermission}), 126, false},
		{"plain", errors.New("tandem failed"), exitcode.Internal, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitcode.Of(tt.err); got != tt.code {
				t.Errorf("Of(%v) = %d, want %d", tt.err, got, tt.code)
			}
			if got := exitcode.Logged(tt.err); got != tt.logged {
				t.Errorf("Logged(%v) = %v, want %v", tt.err, got, tt.logged)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	inner := errors.New("--grace \"soon\": not a duration")
	err := error(&exitcode.Error{Code: exitcode.Usage, Err: inner})
	if err.Error() != inner.Error() || !errors.Is(err, inner) {
		t.Errorf("Error{Err: %q}: text %q, unwraps to it %v; want its text and unwrap", inner, err, errors.Is(err, inner))
	}
	if got := (&exitcode.Error{Code: 7}).Error(); got != "exit status 7" {
		t.Errorf("Error without Err: %q, want \"exit status 7\"", got)
	}
	usage := exitcode.Usagef("--stop-when %q: expected any or success", "never")
	if !strings.Contains(usage.Error(), `"never"`) || exitcode.Logged(usage) {
		t.Errorf("Usagef: %q logged=%v; want the value named and not logged", usage, exitcode.Logged(usage))
	}
}

// The shell's convention: 128+N.
func TestSignaled(t *testing.T) {
	for sig, want := range map[unix.Signal]int{unix.SIGHUP: 129, unix.SIGINT: 130, unix.SIGKILL: 137, unix.SIGTERM: 143} {
		if got := exitcode.Signaled(sig); got != want {
			t.Errorf("Signaled(%v) = %d, want %d", sig, got, want)
		}
	}
}
