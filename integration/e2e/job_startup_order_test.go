//go:build e2e

package e2e

import (
	"testing"
)

// The sidecar publishes its ready file only once its port answers, and the
// main starts only once the ready file exists; on the done file the sidecar
// stops the database with SIGINT (--stop-signal INT).
func TestJobStartupOrder(t *testing.T) {
	p := examplePod(t, "job-startup-order.yaml", "e2e-startup-order")
	// A database that takes its time to listen (initdb).
	p.args(t, "postgres", "standin", "serve", "--name", "postgres", "--tcp", "127.0.0.1:5432", "--listen-after", "1500ms")
	// Dials once: started before the database listens, it fails.
	p.args(t, "migrate", "standin", "send", "--name", "flyway", "127.0.0.1:5432", "CREATE TABLE orders (id bigint)")
	pp := play(t, p)
	pp.mustEnd(jobBound)

	pp.exitCodes(map[string]int{"install-tandem": 0, "migrate": 0, "postgres": 0})
	logs := pp.logs()
	assertOrder(t, logs,
		event{"postgres", "cmd-started"},
		event{"postgres", "condition-holds"}, // --ready-when tcp:127.0.0.1:5432
		event{"postgres", "ready-written"},
		event{"migrate", "condition-holds"},
		event{"migrate", "cmd-started"},
		event{"migrate", "cmd-exited"},
		event{"postgres", "done-seen"},
		event{"postgres", "stop-sent"},
		event{"postgres", "exiting"},
	)
	assertOrder(t, logs,
		event{"postgres", "stop-sent"},
		event{"postgres", "postgres: interrupt, exiting"},
	)
	sidecarGap(t, logs, "migrate", "postgres")
	assertPresent(t, logs, event{"migrate", "waiting"}, event{"postgres", `received "CREATE TABLE orders (id bigint)"`})
	if l, _ := find(logs, "migrate", "condition-holds"); l.field("condition") != "file:/run/tandem/ready" {
		t.Errorf("the main waited for %q; want file:/run/tandem/ready", l.field("condition"))
	}
	if l, _ := find(logs, "postgres", "stop-sent"); l.field("signal") != "SIGINT" {
		t.Errorf("stop signal %q; want SIGINT", l.field("signal"))
	}
}
