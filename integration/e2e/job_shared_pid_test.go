//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// With shareProcessNamespace and no shared volume, the main finds the
// sidecar by its command line and sends it the done signal; the sidecar
// stops the proxy and exits 0.
func TestJobSharedPID(t *testing.T) {
	p := examplePod(t, "job-shared-pid.yaml", "e2e-shared-pid")
	if strings.Contains(p.yaml(), "volumes:") {
		t.Fatal("job-shared-pid.yaml must work without a shared volume")
	}
	p.Args("proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432", "--listen-after", "1s")
	p.Args("vacuum", "standin", "send", "--name", "psql", "127.0.0.1:5432", "VACUUM (ANALYZE) orders")
	_, logs := playJob(t, p, map[string]int{"vacuum": 0, "proxy": 0})
	kit.AssertOrder(t, logs, kit.MainThenStop("vacuum", "proxy",
		kit.Tandem("proxy", "cmd-started"),
		kit.Tandem("vacuum", "condition-holds"),
		kit.Tandem("vacuum", "cmd-started"),
	)...)
	kit.SidecarGap(t, logs, "vacuum", "proxy", sidecarStopBound)
	// The main logs peer-signaled after its kill(2) returned; the sidecar may
	// log done-seen in those same microseconds, so only its presence counts.
	kit.AssertPresent(t, logs, kit.Tandem("vacuum", "peer-signaled"), kit.Program("proxy", `received "VACUUM (ANALYZE) orders"`))
	if l, _ := kit.Find(logs, kit.Tandem("vacuum", "peer-signaled")); l.Field("peer") != "proxy" || l.Field("signal") != "SIGUSR2" {
		t.Errorf("the main signaled %q with %q; want the sidecar named proxy, SIGUSR2", l.Field("peer"), l.Field("signal"))
	}
	if l, _ := kit.Find(logs, kit.Tandem("proxy", "done-seen")); l.Field("source") != "done-signal" {
		t.Errorf("the sidecar saw the end through %q; want done-signal", l.Field("source"))
	}
}
