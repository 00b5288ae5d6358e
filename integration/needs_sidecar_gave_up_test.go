package integration

import (
	"strings"
	"testing"
)

// A needed sidecar that spent its restart budget before the main started
// (in a classic pod the sidecar's start hook holds the main's start until
// the sidecar's container is gone) is lost to that main at once: its
// lifeline has no holder, and the sidecar said beside its ready file that it
// gave up, so the main does not wait out --wait-timeout for a sidecar that
// will not come back. A sidecar that starts there anew clears the word.
func TestNeedsSidecarGaveUpBeforeMainStarted(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready, term := inDir(dir, "db-proxy.ready"), inDir(dir, "termination-log")
	sidecar := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--name", "db-proxy", "--ready-file", ready, "--restart", "always", "--max-restarts", "1"},
		helper("exit", "3"))...)
	sidecar.scWantExit(3, "restart-limit")

	main := needsMain(t, procOptions{}, []string{ready}, helper("sleep"), "--wait-timeout", "1h", "--termination-log", term)
	if code := main.wait(); code != 1 {
		t.Fatalf("the main exited %d; want 1 at once, its needed sidecar gone for good", code)
	}
	wantSidecarLost(t, main, "db-proxy", ready)
	if main.hasEvent("cmd-started") {
		t.Error("the main started CMD without the sidecar it needs")
	}
	if msg := waitFile(t, term); !strings.Contains(msg, "gave up restarting it (restart-limit)") {
		t.Errorf("termination log %q; want the sidecar's giving up named", msg)
	}

	// The next sidecar there has a budget of its own: a main waits for it.
	next := needsSidecar(t, "db-proxy", ready)
	again := needsMain(t, procOptions{}, []string{ready}, helper("exit", "0"))
	if code := again.wait(); code != 0 {
		t.Fatalf("with a new sidecar holding the ready file the main exited %d; want 0", code)
	}
	next.signal(15)
}
