//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// With shareProcessNamespace and no shared volume, the main finds the
// sidecar by its command line and sends it the done signal; the sidecar
// stops the proxy and exits 0.
func TestJobSharedPID(t *testing.T) {
	p := examplePod(t, "job-shared-pid.yaml", "e2e-shared-pid")
	if strings.Contains(p.yaml(), "volumes:") {
		t.Fatal("job-shared-pid.yaml must work without a shared volume")
	}
	p.args(t, "proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432", "--listen-after", "1s")
	p.args(t, "vacuum", "standin", "send", "--name", "psql", "127.0.0.1:5432", "VACUUM (ANALYZE) orders")
	pp := play(t, p)
	pp.mustEnd(jobBound)

	pp.exitCodes(map[string]int{"vacuum": 0, "proxy": 0})
	logs := pp.logs()
	assertOrder(t, logs,
		event{"proxy", "cmd-started"},
		event{"vacuum", "condition-holds"},
		event{"vacuum", "cmd-started"},
		event{"vacuum", "cmd-exited"},
		event{"proxy", "done-seen"},
		event{"proxy", "stop-sent"},
		event{"proxy", "exiting"},
	)
	sidecarGap(t, logs, "vacuum", "proxy")
	// The main logs peer-signaled after its kill(2) returned; the sidecar may
	// log done-seen in those same microseconds, so only its presence counts.
	assertPresent(t, logs, event{"vacuum", "peer-signaled"}, event{"proxy", `received "VACUUM (ANALYZE) orders"`})
	if l, _ := find(logs, "vacuum", "peer-signaled"); l.field("peer") != "proxy" || l.field("signal") != "SIGUSR2" {
		t.Errorf("the main signaled %q with %q; want the sidecar named proxy, SIGUSR2", l.field("peer"), l.field("signal"))
	}
	if l, _ := find(logs, "proxy", "done-seen"); l.field("source") != "done-signal" {
		t.Errorf("the sidecar saw the end through %q; want done-signal", l.field("source"))
	}
}
