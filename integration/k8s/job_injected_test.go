//go:build k8s

package k8s

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// What `tandemctl inject` wrote: tandem copied by a non-root init
// container, the proxy listed first with a postStart hook (made from its
// readinessProbe) that holds the export until the proxy listens, and the
// export's done file stopping the proxy: the Job completes.
func TestJobInjected(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, "inject/job-injected.yaml")
	m.Args("cloud-sql-proxy", "/usr/local/bin/standin", "serve", "--name", "cloud-sql-proxy",
		"--tcp", "127.0.0.1:5432", "--listen-after", postStartListenAfter.String())
	// Dials once: started before the proxy listens, it fails.
	m.Args("export", "/usr/local/bin/standin", "send", "--name", "pg_dump", "127.0.0.1:5432", "COPY orders TO STDOUT")
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"tandem-install": 0, "cloud-sql-proxy": 0, "export": 0})
	assertExportBeforeProxyStop(t, pj.logs)
	kit.SidecarGap(t, pj.logs, "export", "cloud-sql-proxy", sidecarStopBound)
}
