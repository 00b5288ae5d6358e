//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"
)

// The pod's SIGTERM arriving while tandem already stops pgbouncer with INT
// (issue 16, defect 1): it is the same request, so tandem logs it and does
// not forward it, and pgbouncer finishes its safe shutdown instead of
// switching to "got SIGTERM, fast exit". A report's session through the
// pooler holds the safe shutdown open, so the SIGTERM surely comes during it.
func TestRealprogPgbouncerTermDuringStop(t *testing.T) {
	pp := play(t, realprogPod(t, "pgbouncer-term.yaml", "realprog-pgbouncer-term"))
	pp.waitStep(programSaid("pgbouncer", "got SIGINT, shutting down"), jobBound)

	// The pod's deletion: SIGTERM to each container at once (what podman pod
	// stop does, without waiting for them).
	pp.signal("TERM", "postgres", "pgbouncer", "report")
	// Either tandem took the SIGTERM as part of its stop, or pgbouncer is
	// gone already (the defect).
	pp.waitUntil(jobBound, "tandem in pgbouncer to log the SIGTERM, or pgbouncer to end", func() bool {
		_, absorbed := tandemDid("pgbouncer", "signal-absorbed").first(pp.ctrLogs("pgbouncer"))
		return absorbed || pp.state("pgbouncer").Status == "exited"
	})
	// The report ends: its session closes, and so pgbouncer's safe shutdown.
	pp.signal("KILL", "report")
	if !pp.waitExited(jobBound, "pgbouncer") {
		t.Fatalf("pgbouncer still runs %s after its last client ended", jobBound)
	}

	pp.exitCodes(map[string]int{"export": 0, "pgbouncer": 0})
	logs := pp.logs()
	assertSteps(t, logs,
		tandemDid("export", "cmd-exited"),
		tandemDid("pgbouncer", "stop-sent"),
		tandemDid("pgbouncer", "signal-absorbed"),
		tandemDid("pgbouncer", "exiting"),
	)
	if l, ok := tandemDid("pgbouncer", "signal-absorbed").first(logs); ok && l.field("signal") != "SIGTERM" {
		t.Errorf("tandem in pgbouncer absorbed %q; want SIGTERM: %v", l.field("signal"), l.Fields)
	}
	assertSteps(t, logs,
		tandemDid("pgbouncer", "stop-sent"),
		programSaid("pgbouncer", "server connections dropped, exiting"),
	)
	assertNever(t, logs, "pgbouncer", "got SIGTERM")
}

// signal sends sig to each container that still runs.
func (pp *playedPod) signal(sig string, ctrs ...string) {
	pp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), podmanTimeout)
	defer cancel()
	for _, ctr := range ctrs {
		if _, _, err := podman(ctx, "kill", "--signal", sig, pp.ctrName(ctr)); err != nil && pp.state(ctr).Status == "running" {
			pp.t.Fatal(err)
		}
	}
}

// ctrLogs returns what one container wrote so far, stdout and stderr.
func (pp *playedPod) ctrLogs(ctr string) []logLine {
	pp.t.Helper()
	stdout, stderr, err := podman(context.Background(), "logs", "--timestamps", pp.ctrName(ctr))
	if err != nil {
		pp.t.Fatal(err)
	}
	return append(parseLogs(ctr, stdout), parseLogs(ctr, stderr)...)
}

// waitStep waits until s happened, for at most bound.
func (pp *playedPod) waitStep(s step, bound time.Duration) logLine {
	pp.t.Helper()
	var found logLine
	pp.waitUntil(bound, s.String(), func() bool {
		l, ok := s.first(pp.ctrLogs(s.ctr))
		found = l
		return ok
	})
	return found
}

// waitUntil polls cond until it holds, for at most bound: the logs and the
// states of containers announce nothing, so they are read again and again.
func (pp *playedPod) waitUntil(bound time.Duration, what string, cond func() bool) {
	pp.t.Helper()
	for deadline := time.Now().Add(bound); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			pp.t.Fatalf("no %s within %s", what, bound)
		}
	}
}
