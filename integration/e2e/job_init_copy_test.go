//go:build e2e

package e2e

import (
	"testing"
)

// The init container copies tandem out of the scratch tandem image (which
// has no shell and no cp) into an emptyDir; the main and sidecar run it from
// there, and the Job completes as in job-done-file.yaml.
func TestJobInitCopy(t *testing.T) {
	p := examplePod(t, "job-init-copy.yaml", "e2e-init-copy")
	p.args(t, "cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432", "--listen-after", "1s")
	p.args(t, "export", "standin", "send", "--name", "pg_dump", "127.0.0.1:5432", "COPY orders TO STDOUT")
	pp := play(t, p)
	pp.mustEnd(jobBound)

	pp.exitCodes(map[string]int{"install-tandem": 0, "export": 0, "cloud-sql-proxy": 0})
	logs := pp.logs()
	assertOrder(t, logs,
		event{"cloud-sql-proxy", "CMD started"},
		event{"export", "condition holds"},
		event{"export", "CMD started"},
		event{"export", "CMD exited"},
		event{"cloud-sql-proxy", "main is done"},
		event{"cloud-sql-proxy", "stop signal sent"},
		event{"cloud-sql-proxy", "tandem exiting"},
	)
	sidecarGap(t, logs, "export", "cloud-sql-proxy")
	assertPresent(t, logs,
		event{"install-tandem", "installed /tandem-bin/tandem"},
		event{"export", "pg_dump: finished"},
		event{"cloud-sql-proxy", `received "COPY orders TO STDOUT"`},
	)
}
