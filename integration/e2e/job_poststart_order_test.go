//go:build e2e

package e2e

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The start order through the postStart hook is the kubelet's, and
// integration/k8s proves it there; podman kube play is not relied on for
// it, so the export here retries until the proxy answers. What this plays
// is the rest of the example: the proxy stopped through the done file, both
// containers exit 0.
func TestJobPostStartOrder(t *testing.T) {
	p := examplePod(t, "job-poststart-order.yaml", "e2e-poststart-order")
	p.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	p.Args("export", "sh", "-c", "until standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'; do sleep 0.2; done")
	_, logs := playJob(t, p, map[string]int{"export": 0, "cloud-sql-proxy": 0})
	kit.AssertOrder(t, logs, kit.MainThenStop("export", "cloud-sql-proxy")...)
	kit.SidecarGap(t, logs, "export", "cloud-sql-proxy", sidecarStopBound)
	kit.AssertPresent(t, logs, kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
}
