package integration

import (
	"syscall"
	"testing"
)

// Whatever way CMD ends, tandem main exits as CMD did and its done file says
// how: exitCode (the code Kubernetes records), signal and reason.
func TestMain_DoneFileRecordsHowCMDEnded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		argv     []string
		code     int
		signal   string
		reason   string
		extra    []string
		byTandem syscall.Signal // sent to tandem once CMD runs
	}{
		{name: "exit 0", argv: helper("exit", "0"), code: 0, reason: "exited"},
		{name: "exit 3", argv: helper("exit", "3"), code: 3, reason: "exited"},
		{name: "killed by SIGKILL", argv: helper("die-of", "9"), code: 137, signal: "SIGKILL", reason: "signaled"},
		// A pod deletion: SIGTERM reaches tandem, is forwarded, CMD dies of it.
		{name: "SIGTERM forwarded", argv: helper("sleep"), code: 143, signal: "SIGTERM", reason: "signaled", byTandem: syscall.SIGTERM},
		// --success-code rewrites the recorded code too: it is what the
		// container exits with.
		{name: "success code", argv: helper("exit", "3"), extra: []string{"--success-code", "3"}, code: 0, reason: "exited"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			done := inDir(tempDir(t), "done")
			args := append([]string{"main", "--name", "job", "--done-file", done}, tc.extra...)
			p := startTandem(t, procOptions{}, cmdArgs(args, tc.argv)...)
			if tc.byTandem != 0 {
				p.childPID()
				p.signal(tc.byTandem)
			}
			p.scWantExit(tc.code, tc.reason)
			f := scWantStatus(t, done, "done", tc.code, tc.signal, tc.reason)
			if f.Name != "job" {
				t.Fatalf("done file name %q, want job", f.Name)
			}
			written := p.waitEvent("done-written")
			if written.Field("path") != done || written.Num("exit_code") != tc.code {
				t.Fatalf("done file written: %v", written)
			}
			p.scWantOrder("cmd-started", "cmd-exited", "done-written", "exiting")
		})
	}
}
