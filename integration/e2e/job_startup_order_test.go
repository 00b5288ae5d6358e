//go:build e2e

package e2e

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The sidecar publishes its ready file only once its port answers, and the
// main starts only once the ready file exists; on the done file the sidecar
// stops the database with SIGINT (--stop-signal INT).
func TestJobStartupOrder(t *testing.T) {
	p := examplePod(t, "job-startup-order.yaml", "e2e-startup-order")
	// A database that takes its time to listen (initdb).
	p.Args("postgres", "standin", "serve", "--name", "postgres", "--tcp", "127.0.0.1:5432", "--listen-after", "1500ms")
	// Dials once: started before the database listens, it fails.
	p.Args("migrate", "standin", "send", "--name", "flyway", "127.0.0.1:5432", "CREATE TABLE orders (id bigint)")
	_, logs := playJob(t, p, map[string]int{"install-tandem": 0, "migrate": 0, "postgres": 0})
	kit.AssertOrder(t, logs, kit.MainThenStop("migrate", "postgres",
		kit.Tandem("postgres", "cmd-started"),
		kit.Tandem("postgres", "condition-holds"), // --ready-when tcp:127.0.0.1:5432
		kit.Tandem("postgres", "ready-written"),
		kit.Tandem("migrate", "condition-holds"),
		kit.Tandem("migrate", "cmd-started"),
	)...)
	kit.AssertOrder(t, logs,
		kit.Tandem("postgres", "stop-sent"),
		kit.Program("postgres", "postgres: interrupt, exiting"),
	)
	kit.SidecarGap(t, logs, "migrate", "postgres", sidecarStopBound)
	kit.AssertPresent(t, logs, kit.Tandem("migrate", "waiting"), kit.Program("postgres", `received "CREATE TABLE orders (id bigint)"`))
	if l, _ := kit.Find(logs, kit.Tandem("migrate", "condition-holds")); l.Field("condition") != "file:/run/tandem/ready" {
		t.Errorf("the main waited for %q; want file:/run/tandem/ready", l.Field("condition"))
	}
	if l, _ := kit.Find(logs, kit.Tandem("postgres", "stop-sent")); l.Field("signal") != "SIGINT" {
		t.Errorf("stop signal %q; want SIGINT", l.Field("signal"))
	}
}
