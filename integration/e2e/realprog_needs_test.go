//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The export Job with real programs, its export reading through pgbouncer
// and needing it (--needs pgbouncer's ready file instead of --wait-for):
// pgbouncer's container killed outright stops the export at once, which
// would otherwise see its queries fail one by one and run on. The export
// ends with 143 (its CMD stopped by SIGTERM) and reason sidecar-lost; its
// done file stops postgres as usual.
func TestRealprogExportNeedsPgbouncer(t *testing.T) {
	p := realprogPod(t, "export.yaml", "realprog-needs")
	p.HostPath("out", t.TempDir())
	cmd := p.List("export", "command")
	at := slices.Index(cmd, "file:/run/tandem/pgbouncer.ready")
	if at < 1 || cmd[at-1] != "--wait-for" {
		t.Fatalf("realprog/export.yaml: the export no longer waits for pgbouncer's ready file: %q", cmd)
	}
	p.SetCommand("export", slices.Replace(cmd, at-1, at+1, "--needs", "/run/tandem/pgbouncer.ready")...)
	// An export in batches, each a query through pgbouncer; a failed one is
	// reported and the next tried, as such scripts do.
	p.Args("export", "sh", "-c", `while :; do
  if n=$(psql --host 127.0.0.1 --port 6432 --username postgres --no-align --tuples-only --command 'select count(*) from orders' shop); then
    echo "export: read $n orders through pgbouncer"
  else
    echo 'export: query failed'
  fi
  sleep 0.2
done`)
	pp := play(t, p)
	pp.waitStep(kit.Program("export", "export: read 10000 orders through pgbouncer"), jobBound)
	killed, lost := pp.loseSidecar("pgbouncer", "export", map[string]int{"pgbouncer": 137, "export": 143, "postgres": 0})
	logs := pp.logs()
	// The done file is in place before the export's tandem logs its exit,
	// so postgres's tandem may see it first (seen: 19µs before).
	kit.AssertOrder(t, logs,
		kit.Tandem("export", "sidecar-lost"),
		kit.Tandem("postgres", "done-seen"),
		kit.Tandem("postgres", "exiting"),
	)
	kit.AssertPresent(t, logs, kit.Tandem("export", "exiting"))
	t.Logf("pgbouncer SIGKILLed: the export's tandem saw it lost %s after the call to podman kill (podman's own start included) and ended %s after that call",
		lost.At.Sub(killed).Round(time.Microsecond), pp.finishedAt("export").Sub(killed).Round(time.Millisecond))
}
