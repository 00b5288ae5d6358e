package integration

import (
	"os"
	"syscall"
	"testing"
)

// --wait-for gates CMD's start; when it cannot be met the main still writes
// its done file, so the sidecars stop instead of running for ever.
func TestMain_WaitFor(t *testing.T) {
	t.Parallel()

	t.Run("starts CMD once the condition holds", func(t *testing.T) {
		t.Parallel()
		dir := tempDir(t)
		gate, done, marker := inDir(dir, "gate"), inDir(dir, "done"), inDir(dir, "marker")
		p := startTandem(t, procOptions{},
			cmdArgs([]string{"main", "--wait-for", "file:" + gate, "--wait-interval", "10ms", "--done-file", done},
				helper("mark", marker))...)
		p.waitEvent("waiting")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("CMD ran before its condition held")
		}
		scWriteFile(t, gate, "")
		p.scWantExit(0, "exited")
		p.scWantOrder("waiting", "condition-holds", "cmd-started", "done-written")
		scWantStatus(t, done, "done", 0, "", "exited")
	})

	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		dir := tempDir(t)
		done, marker := inDir(dir, "done"), inDir(dir, "marker")
		p := startTandem(t, procOptions{},
			cmdArgs([]string{"main", "--wait-for", "file:" + inDir(dir, "never"), "--wait-timeout", "200ms",
				"--wait-interval", "20ms", "--done-file", done}, helper("mark", marker))...)
		p.scWantExit(1, "wait-timeout")
		if p.hasEvent("cmd-started") {
			t.Fatal("CMD started after the wait timed out")
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("CMD ran after the wait timed out")
		}
		scWantStatus(t, done, "done", 1, "", "wait-timeout")
	})

	t.Run("SIGTERM while waiting", func(t *testing.T) {
		t.Parallel()
		dir := tempDir(t)
		done, marker := inDir(dir, "done"), inDir(dir, "marker")
		p := startTandem(t, procOptions{},
			cmdArgs([]string{"main", "--wait-for", "file:" + inDir(dir, "never"), "--wait-timeout", "1h",
				"--done-file", done}, helper("mark", marker))...)
		p.waitEvent("waiting")
		p.signal(syscall.SIGTERM)
		p.scWantExit(143, "interrupted")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("CMD ran although tandem was interrupted while waiting")
		}
		scWantStatus(t, done, "done", 143, "SIGTERM", "interrupted")
	})
}
