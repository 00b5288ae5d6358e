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
// the Job is still active, the proxy still running. What the kubelet did
// is measured and reported, not asserted.
func TestControlClassicJobStaysActive(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, "job-done-file.yaml")
	kit.ClassicDoneFile(m)
	start := n.apply(m)

	end, _, err := n.waitJob(m.Name(), controlWatch)
	if err != nil {
		end = "still active"
	}
	p := n.onlyPod(m.Name())
	export, _ := p.container("export")
	code, ended := export.exitCode()
	proxy, _ := p.container("cloud-sql-proxy")
	t.Logf("control: the export ended %v with %d; %s after apply the Job is %s, the proxy running %v",
		ended, code, time.Since(start).Round(time.Millisecond), end, proxy.running())
}
