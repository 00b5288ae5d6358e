package integration

import (
	"testing"
)

// --stop-when success: a done file reporting a failed main is ignored (a Job
// with restartPolicy OnFailure retries the main in the same pod and still
// needs its proxy) until a successful one replaces it.
func TestSidecarStopWhenSuccess(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	p := rec.start("sidecar", "--stop-when", "success", "--poll-interval", "1h", "--done-file", rec.done)

	// The failed main's file, written as tandem main would (atomically).
	announceDone(t, rec.done, "--exit-code", "1")
	failed := p.waitEvent("main-failed")
	if failed.Num("exit_code") != 1 {
		t.Fatalf("warning names exit code %d, want 1", failed.Num("exit_code"))
	}
	if p.hasEvent("done-seen") || p.hasEvent("stop-sent") {
		t.Fatal("a failed main's done file stopped the sidecar")
	}
	if got := rec.received(); len(got) != 0 {
		t.Fatalf("CMD received signals after a failed main: %q", got)
	}

	// The retried main succeeds.
	announceDone(t, rec.done, "--exit-code", "0")
	p.scWantExit(0, "stopped")
	if seen := p.waitEvent("done-seen"); seen.Num("main_exit_code") != 0 {
		t.Fatalf("main is done with main_exit_code %d, want 0", seen.Num("main_exit_code"))
	}
	p.scWantOrder("main-failed",
		"done-seen", "stop-sent", "cmd-exited")
	rec.wantReceived("only SIGTERM (15)", "15")
}

// The default, --stop-when any: a failed main's done file stops the sidecar
// too (the Job is over).
func TestSidecarStopWhenAnyCountsFailure(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	p := rec.start("sidecar", "--poll-interval", "1h", "--done-file", rec.done)
	announceDone(t, rec.done, "--exit-code", "1")
	p.scWantExit(0, "stopped")
	if seen := p.waitEvent("done-seen"); seen.Num("main_exit_code") != 1 {
		t.Fatalf("main is done with main_exit_code %d, want 1", seen.Num("main_exit_code"))
	}
}
