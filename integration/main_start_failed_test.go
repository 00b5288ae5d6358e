package integration

import "testing"

// A CMD that cannot start still produces a done file (reason start-failed),
// or the sidecar would wait for ever; tandem exits as a shell would.
func TestMain_StartFailureWritesDoneFile(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	notExec := inDir(dir, "not-executable")
	scWriteFile(t, notExec, "#!/bin/sh\n")
	cases := []struct {
		name string
		cmd  string
		code int
	}{
		{"not found", inDir(dir, "no-such-program"), 127},
		{"not executable", notExec, 126},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			done := inDir(tempDir(t), "done")
			p := startTandem(t, procOptions{}, "main", "--done-file", done, "--", tc.cmd)
			p.scWantExit(tc.code, "start-failed")
			scWantStatus(t, done, "done", tc.code, "", "start-failed")
			if p.hasEvent("cmd-started") {
				t.Fatal("cmd-started")
			}
		})
	}
}
