package integration

import (
	"strings"
	"syscall"
	"testing"
)

// --max-restarts 1: the second crash within --restart-window ends tandem
// with CMD's code and reason restart-limit, an error naming the count and
// the window, instead of a crash loop that never ends.
func TestSidecarRestartBudgetSpent(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--restart", "always", "--max-restarts", "1", "--restart-window", "10m", "--done-file", done},
		helper("exit", "3"))...)
	p.scWantExit(3, "restart-limit")
	limit := p.waitEvent("restart-limit")
	if limit.Field("level") != "error" || limit.Num("crashes") != 2 || !strings.Contains(limit.Field("message"), "2 times within 10m0s (--max-restarts 1)") {
		t.Fatalf("restart-limit line: %v", limit)
	}
	if n := len(p.scLinesWith("cmd-started")); n != 2 {
		t.Fatalf("CMD started %d times, want 2", n)
	}
}

// --max-restarts needs a --restart policy that restarts: alone it is a
// typo that must not look like protection.
func TestSidecarMaxRestartsWithoutRestart(t *testing.T) {
	t.Parallel()
	code, _, stderr := runTandem(t, procOptions{}, "sidecar", "--max-restarts", "3", "--", "true")
	if code != 2 || !strings.Contains(stderr, "--max-restarts 3: has no effect without --restart on-failure or always") {
		t.Fatalf("exit %d, stderr %q; want a usage error", code, stderr)
	}
}

// A needed sidecar that spends its restart budget is lost to the mains
// that need it: the main fails at once with the reason, instead of waiting
// out --wait-timeout beside a crash loop. CMD is killed each time it
// starts, once the main holds the sidecar.
func TestSidecarRestartBudgetSpentFailsTheMain(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready := inDir(dir, "db-proxy.ready")
	sidecar := needsSidecar(t, "db-proxy", ready, "--restart", "always", "--max-restarts", "1")
	main := needsMain(t, procOptions{}, []string{ready}, helper("sleep"), "--wait-timeout", "1h")
	main.waitEvent("cmd-started")
	for n := 1; n <= 2; n++ {
		sidecar.waitNth("cmd-started", n)
		pid := int(sidecar.scLinesWith("cmd-started")[n-1].Num("pid"))
		mustDo(t, syscall.Kill(pid, syscall.SIGKILL))
	}
	sidecar.scWantExit(137, "restart-limit")
	if code := main.wait(); code == 0 {
		t.Fatal("the main exited 0 after its needed sidecar gave up")
	}
	wantSidecarLost(t, main, "db-proxy", ready)
}
