//go:build e2e

package e2e

import "testing"

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
