//go:build e2e

package e2e

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The pod's SIGTERM arriving while tandem already stops pgbouncer with INT: it
// is the same request, so tandem logs it and does not forward it, and pgbouncer
// finishes its safe shutdown instead of switching to "got SIGTERM, fast exit".
// A report's session through the pooler holds the safe shutdown open, so the
// SIGTERM surely comes during it.
func TestRealprogPgbouncerTermDuringStop(t *testing.T) {
	pp := play(t, realprogPod(t, "pgbouncer-term.yaml", "realprog-pgbouncer-term"))
	pp.waitStep(kit.Program("pgbouncer", "got SIGINT, shutting down"), jobBound)

	// The pod's deletion: SIGTERM to each container at once (what podman pod
	// stop does, without waiting for them).
	pp.signal("TERM", "postgres", "pgbouncer", "report")
	// Either tandem took the SIGTERM as part of its stop, or pgbouncer is
	// gone already (the defect).
	pp.waitUntil(jobBound, "tandem in pgbouncer to log the SIGTERM, or pgbouncer to end", func() bool {
		_, absorbed := kit.Find(pp.ctrLogs("pgbouncer"), kit.Tandem("pgbouncer", "signal-absorbed"))
		return absorbed || pp.state("pgbouncer").Status == "exited"
	})
	// The report ends: its session closes, and so pgbouncer's safe shutdown.
	pp.signal("KILL", "report")
	if !pp.waitExited(jobBound, "pgbouncer") {
		t.Fatalf("pgbouncer still runs %s after its last client ended", jobBound)
	}

	pp.exitCodes(map[string]int{"export": 0, "pgbouncer": 0})
	logs := pp.logs()
	kit.AssertOrder(t, logs,
		kit.Tandem("export", "cmd-exited"),
		kit.Tandem("pgbouncer", "stop-sent"),
		kit.Tandem("pgbouncer", "signal-absorbed"),
		kit.Tandem("pgbouncer", "exiting"),
	)
	if l, ok := kit.Find(logs, kit.Tandem("pgbouncer", "signal-absorbed")); ok && l.Field("signal") != "SIGTERM" {
		t.Errorf("tandem in pgbouncer absorbed %q; want SIGTERM: %v", l.Field("signal"), l.Fields)
	}
	kit.AssertOrder(t, logs,
		kit.Tandem("pgbouncer", "stop-sent"),
		kit.Program("pgbouncer", "server connections dropped, exiting"),
	)
	kit.AssertNever(t, logs, "pgbouncer", "got SIGTERM")
}
