package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestStatusExitCode(t *testing.T) {
	tests := []struct {
		st         Status
		code       int
		reason     string
		signalName string
	}{
		{Status{Code: 0}, 0, ReasonExited, ""},
		{Status{Code: 3}, 3, ReasonExited, ""},
		{Status{Code: 255}, 255, ReasonExited, ""},
		{Status{Signal: unix.SIGKILL}, 137, ReasonSignaled, "SIGKILL"},
		{Status{Signal: unix.SIGTERM}, 143, ReasonSignaled, "SIGTERM"},
		{Status{Signal: unix.SIGINT}, 130, ReasonSignaled, "SIGINT"},
		{Status{Signal: 64}, 192, ReasonSignaled, "SIG64"},
	}
	for _, tt := range tests {
		if got := tt.st.ExitCode(); got != tt.code {
			t.Errorf("%+v.ExitCode() = %d, want %d", tt.st, got, tt.code)
		}
		if got := tt.st.Reason(); got != tt.reason {
			t.Errorf("%+v.Reason() = %q, want %q", tt.st, got, tt.reason)
		}
		if got := tt.st.SignalName(); got != tt.signalName {
			t.Errorf("%+v.SignalName() = %q, want %q", tt.st, got, tt.signalName)
		}
	}
}

// statusFromWait reads the kernel's encoding: exit code in bits 8-15, the
// signal in the low 7 bits.
func TestStatusFromWait(t *testing.T) {
	tests := []struct {
		ws   unix.WaitStatus
		want Status
	}{
		{unix.WaitStatus(0), Status{}},
		{unix.WaitStatus(7 << 8), Status{Code: 7}},
		{unix.WaitStatus(255 << 8), Status{Code: 255}},
		{unix.WaitStatus(unix.SIGKILL), Status{Signal: unix.SIGKILL}},
		{unix.WaitStatus(unix.SIGSEGV | 0x80), Status{Signal: unix.SIGSEGV}}, // core dumped
	}
	for _, tt := range tests {
		if got := statusFromWait(tt.ws); got != tt.want {
			t.Errorf("statusFromWait(%#x) = %+v, want %+v", uint32(tt.ws), got, tt.want)
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

func TestExitCodeOf(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{UsageError("bad %s", "flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", &CodedError{Code: ExitNotFound, Err: errors.New("x")}), ExitNotFound},
		{&CodedError{Code: ExitTimeout, Err: errors.New("timed out")}, ExitTimeout},
		{errors.New("tandem failed"), ExitInternal},
	}
	for _, tt := range tests {
		if got := ExitCodeOf(tt.err); got != tt.want {
			t.Errorf("ExitCodeOf(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// These fail before anything is forked, so no reaper is needed (one would
// steal the children of other tests).
func TestStartErrorCodes(t *testing.T) {
	var r *Reaper
	if _, err := startProcess(r, []string{"/nonexistent/program"}, spawnOptions{}); ExitCodeOf(err) != ExitNotFound {
		t.Errorf("missing program: %v (code %d), want 127", err, ExitCodeOf(err))
	}
	if _, err := startProcess(r, []string{"no-such-program-on-path-xyz"}, spawnOptions{}); ExitCodeOf(err) != ExitNotFound {
		t.Errorf("missing program on PATH: %v (code %d), want 127", err, ExitCodeOf(err))
	}
	notExecutable := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notExecutable, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := startProcess(r, []string{notExecutable}, spawnOptions{}); ExitCodeOf(err) != ExitCannotExec {
		t.Errorf("not executable: %v (code %d), want 126", err, ExitCodeOf(err))
	}
}
