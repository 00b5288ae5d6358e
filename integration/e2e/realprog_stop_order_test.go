//go:build e2e

package e2e

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// Shutdown order between sidecars: pgbouncer's sidecar writes its stopped file
// once pgbouncer has exited after the requested stop, and postgres's sidecar
// lists that file among its done files. So postgres stops after pgbouncer, as
// native sidecars stop in reverse order, and pgbouncer never sees its server go
// away.
func TestRealprogStopOrder(t *testing.T) {
	p := realprogPod(t, "export.yaml", "realprog-stop-order")
	p.HostPath("out", t.TempDir())
	p.AddFlags("pgbouncer", "--stopped-file", "/run/tandem/pgbouncer.stopped")
	p.AddFlags("postgres", "--done-file", "/run/tandem/pgbouncer.stopped")
	pp, logs := playJob(t, p, map[string]int{"export": 0, "pgbouncer": 0, "postgres": 0})
	kit.AssertOrder(t, logs,
		kit.Tandem("export", "cmd-exited"),
		kit.Tandem("pgbouncer", "stop-sent"),
		kit.Tandem("pgbouncer", "cmd-exited"),
		kit.Tandem("postgres", "done-seen"),
		kit.Tandem("postgres", "stop-sent"),
		kit.Program("postgres", "database system is shut down"),
	)
	// The stopped file is logged once it is in place, so postgres's tandem
	// may see it first.
	kit.MustFind(t, logs, kit.Tandem("pgbouncer", "stopped-written"))
	if done := kit.MustFind(t, logs, kit.Tandem("postgres", "done-seen")); done.Field("path") != "/run/tandem/pgbouncer.stopped" {
		t.Errorf("postgres's last done file was %q; want pgbouncer's stopped file: %v", done.Field("path"), done.Fields)
	}
	kit.AssertOrder(t, logs,
		kit.Tandem("pgbouncer", "stop-sent"),
		kit.Program("pgbouncer", "server connections dropped, exiting"),
	)
	kit.AssertNever(t, logs, "pgbouncer", " WARNING ", " ERROR ", "server conn crashed")
	pp.logPodEnd(logs, "export")
}
