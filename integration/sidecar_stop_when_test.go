package integration

import (
	"slices"
	"testing"
)

// --stop-when success: a done file reporting a failed main is ignored (a Job
// with restartPolicy OnFailure retries the main in the same pod and still
// needs its proxy) until a successful one replaces it.
func TestSidecarStopWhenSuccess(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, out := inDir(dir, "done"), inDir(dir, "signals")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--stop-when", "success", "--poll-interval", "1h", "--done-file", done},
		helper("record-signals", out, "15"))...)
	waitReadyPID(t, out)

	// The failed main's file, written as tandem main would (atomically).
	if code, _, stderr := runTandem(t, procOptions{}, "done", "--file", done, "--exit-code", "1"); code != 0 {
		t.Fatalf("tandem done: exit %d: %s", code, stderr)
	}
	failed := p.waitEvent("main-failed")
	if failed.Num("exit_code") != 1 {
		t.Fatalf("warning names exit code %d, want 1", failed.Num("exit_code"))
	}
	if p.hasEvent("done-seen") || p.hasEvent("stop-sent") {
		t.Fatal("a failed main's done file stopped the sidecar")
	}
	if got := readLines(out); len(got) != 1 {
		t.Fatalf("CMD received signals after a failed main: %q", got[1:])
	}

	// The retried main succeeds.
	if code, _, stderr := runTandem(t, procOptions{}, "done", "--file", done, "--exit-code", "0"); code != 0 {
		t.Fatalf("tandem done: exit %d: %s", code, stderr)
	}
	p.scWantExit(0, "stopped")
	if seen := p.waitEvent("done-seen"); seen.Num("main_exit_code") != 0 {
		t.Fatalf("main is done with main_exit_code %d, want 0", seen.Num("main_exit_code"))
	}
	p.scWantOrder("main-failed",
		"done-seen", "stop-sent", "cmd-exited")
	if got := readLines(out); !slices.Equal(got[1:], []string{"15"}) {
		t.Fatalf("CMD received %q, want only SIGTERM (15)", got[1:])
	}
}

// The default, --stop-when any: a failed main's done file stops the sidecar
// too (the Job is over).
func TestSidecarStopWhenAnyCountsFailure(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, out := inDir(dir, "done"), inDir(dir, "signals")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--poll-interval", "1h", "--done-file", done}, helper("record-signals", out, "15"))...)
	waitReadyPID(t, out)
	if code, _, stderr := runTandem(t, procOptions{}, "done", "--file", done, "--exit-code", "1"); code != 0 {
		t.Fatalf("tandem done: exit %d: %s", code, stderr)
	}
	p.scWantExit(0, "stopped")
	if seen := p.waitEvent("done-seen"); seen.Num("main_exit_code") != 1 {
		t.Fatalf("main is done with main_exit_code %d, want 1", seen.Num("main_exit_code"))
	}
}
