package integration

import (
	"os"
	"syscall"
	"testing"
)

// --wait-for gates CMD's start; when it cannot be met the main still writes
// its done file, so the sidecars stop instead of running for ever. Every
// case gates `tandem main` on a file, GATE, and differs in what happens
// while it waits and how it ends.
func TestMain_WaitFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		flags []string // after --wait-for file:GATE
		// meanwhile runs as tandem starts: it makes the condition hold, or
		// ends the wait another way, or leaves it to time out.
		meanwhile func(t *testing.T, p *tandemProc, gate, marker string)
		code      int
		signal    string
		reason    string
	}{
		{
			name: "starts CMD once the condition holds", flags: []string{"--wait-interval", "10ms"},
			meanwhile: func(t *testing.T, p *tandemProc, gate, marker string) {
				p.waitEvent("waiting")
				if _, err := os.Stat(marker); err == nil {
					t.Fatal("CMD ran before its condition held")
				}
				scWriteFile(t, gate, "")
			},
			code: 0, reason: "exited",
		},
		{
			name: "timeout", flags: []string{"--wait-timeout", "200ms", "--wait-interval", "20ms"},
			code: 1, reason: "wait-timeout",
		},
		{
			name: "SIGTERM while waiting", flags: []string{"--wait-timeout", "1h"},
			meanwhile: func(t *testing.T, p *tandemProc, _, _ string) {
				p.waitEvent("waiting")
				p.signal(syscall.SIGTERM)
			},
			code: 143, signal: "SIGTERM", reason: "interrupted",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			gate, done, marker := inDir(dir, "gate"), inDir(dir, "done"), inDir(dir, "marker")
			args := append(append([]string{"main", "--wait-for", "file:" + gate}, tc.flags...), "--done-file", done)
			p := startTandem(t, procOptions{}, cmdArgs(args, helper("mark", marker))...)
			if tc.meanwhile != nil {
				tc.meanwhile(t, p, gate, marker)
			}
			p.scWantExit(tc.code, tc.reason)
			if tc.reason == "exited" {
				p.scWantOrder("waiting", "condition-holds", "cmd-started", "done-written")
			} else {
				if p.hasEvent("cmd-started") {
					t.Fatalf("CMD started although the wait ended %s", tc.reason)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("CMD ran although the wait ended %s", tc.reason)
				}
			}
			scWantStatus(t, done, "done", tc.code, tc.signal, tc.reason)
		})
	}
}
