//go:build e2e

package e2e

import "testing"

// Shutdown order between sidecars (issue 16, defect 3): pgbouncer's sidecar
// writes its stopped file once pgbouncer has exited after the requested
// stop, and postgres's sidecar lists that file among its done files. So
// postgres stops after pgbouncer, as native sidecars stop in reverse order,
// and pgbouncer never sees its server go away.
func TestRealprogStopOrder(t *testing.T) {
	p := realprogPod(t, "export.yaml", "realprog-stop-order")
	p.hostPath(t, "out", t.TempDir())
	p.addFlags(t, "pgbouncer", "--stopped-file", "/run/tandem/pgbouncer.stopped")
	p.addFlags(t, "postgres", "--done-file", "/run/tandem/pgbouncer.stopped")
	pp := play(t, p)
	pp.mustEnd(jobBound)

	pp.exitCodes(map[string]int{"export": 0, "pgbouncer": 0, "postgres": 0})
	logs := pp.logs()
	assertSteps(t, logs,
		tandemDid("export", "cmd-exited"),
		tandemDid("pgbouncer", "stop-sent"),
		tandemDid("pgbouncer", "cmd-exited"),
		tandemDid("postgres", "done-seen"),
		tandemDid("postgres", "stop-sent"),
		programSaid("postgres", "database system is shut down"),
	)
	// The stopped file is logged once it is in place, so postgres's tandem
	// may see it first.
	mustFind(t, logs, tandemDid("pgbouncer", "stopped-written"))
	if done := mustFind(t, logs, tandemDid("postgres", "done-seen")); done.field("path") != "/run/tandem/pgbouncer.stopped" {
		t.Errorf("postgres's last done file was %q; want pgbouncer's stopped file: %v", done.field("path"), done.Fields)
	}
	assertSteps(t, logs,
		tandemDid("pgbouncer", "stop-sent"),
		programSaid("pgbouncer", "server connections dropped, exiting"),
	)
	assertNever(t, logs, "pgbouncer", " WARNING ", " ERROR ", "server conn crashed")
	pp.logPodEnd(logs, "export")
}
