package process

import (
	"errors"
	"io/fs"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// statusFromWait reads the kernel's encoding: the exit code in bits 8-15,
// the signal in the low 7 bits (bit 7: core dumped).
func TestStatusFromWait(t *testing.T) {
	tests := []struct {
		ws   unix.WaitStatus
		want Status
	}{
		{unix.WaitStatus(0), Status{}},
		{unix.WaitStatus(7 << 8), Status{Code: 7}},
		{unix.WaitStatus(255 << 8), Status{Code: 255}},
		{unix.WaitStatus(unix.SIGKILL), Status{Signal: unix.SIGKILL}},
		{unix.WaitStatus(unix.SIGTERM), Status{Signal: unix.SIGTERM}},
		{unix.WaitStatus(unix.SIGSEGV | 0x80), Status{Signal: unix.SIGSEGV}}, // core dumped
	}
	for _, tt := range tests {
		if got := statusFromWait(tt.ws); got != tt.want {
			t.Errorf("statusFromWait(%#x) = %+v, want %+v", uint32(tt.ws), got, tt.want)
		}
	}
}

func TestStatusExitCode(t *testing.T) {
	tests := []struct {
		st         Status
		code       int
		signalName string
	}{
		{Status{Code: 0}, 0, ""},
		{Status{Code: 3}, 3, ""},
		{Status{Code: 255}, 255, ""},
		{Status{Signal: unix.SIGKILL}, 137, "SIGKILL"},
		{Status{Signal: unix.SIGTERM}, 143, "SIGTERM"},
		{Status{Signal: unix.SIGINT}, 130, "SIGINT"},
		{Status{Signal: 64}, 192, "SIG64"},
	}
	for _, tt := range tests {
		if got := tt.st.ExitCode(); got != tt.code {
			t.Errorf("%+v.ExitCode() = %d, want %d", tt.st, got, tt.code)
		}
		if got := tt.st.SignalName(); got != tt.signalName {
			t.Errorf("%+v.SignalName() = %q, want %q", tt.st, got, tt.signalName)
		}
	}
}

func TestStartErrorCodes(t *testing.T) {
	tests := []struct {
		err      error
		notFound bool
		code     int
	}{
		{exec.ErrNotFound, true, 127},
		{&exec.Error{Name: "x", Err: exec.ErrNotFound}, true, 127},
		{unix.ENOENT, true, 127},
		{fs.ErrNotExist, true, 127},
		{unix.EACCES, false, 126},
		{unix.ENOEXEC, false, 126},
		{errors.New("other"), false, 126},
	}
	for _, tt := range tests {
		err := startError("prog", tt.err)
		var se *StartError
		if !errors.As(err, &se) || se.NotFound != tt.notFound || se.ExitCode() != tt.code {
			t.Errorf("startError(%v) = %#v, want not-found %v, code %d", tt.err, err, tt.notFound, tt.code)
		}
		if !errors.Is(err, tt.err) || err.Error() != `start "prog": `+tt.err.Error() {
			t.Errorf("startError(%v): %q, want it to wrap the cause and name the program", tt.err, err)
		}
	}
}
