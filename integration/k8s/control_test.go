//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// controlWatch is how long the control Job is watched after apply: its
// export ends within seconds, and with tandem the Job completes in about
// six (six is what this machine measured).
const controlWatch = 30 * time.Second

// Control: job-done-file.yaml without tandem, the classic pod. The export
// does its work and exits 0, but nothing stops the proxy: 30 s after apply
// the Job is still active, the proxy still running.
func TestControlClassicJobStaysActive(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, "job-done-file.yaml")
	kit.ClassicDoneFile(m)
	start := n.apply(m)

	end, _, err := n.waitJob(m.Name(), controlWatch)
	if err == nil {
		t.Fatalf("the classic Job ended (%s) within %s: the control proves nothing", end, controlWatch)
	}
	p := n.onlyPod(m.Name())
	export, _ := p.container("export")
	if code, ended := export.exitCode(); !ended || code != 0 {
		t.Fatalf("the export itself did not end with 0 (ended %v, code %d): the control proves nothing", ended, code)
	}
	if proxy, _ := p.container("cloud-sql-proxy"); !proxy.running() {
		t.Fatal("the classic proxy is not running")
	}
	t.Logf("control: the export exited 0 at %s; %s after apply the proxy still runs and the Job is active",
		export.State.Terminated.FinishedAt.Format(time.TimeOnly), time.Since(start).Round(time.Millisecond))
}
