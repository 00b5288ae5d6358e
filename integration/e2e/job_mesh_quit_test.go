//go:build e2e

package e2e

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The istio-proxy that the mesh would inject is played by a stand-in that is
// not wrapped: the main waits for its readiness endpoint, and when the work
// is done POSTs its quit endpoint, on which it exits 0.
func TestJobMeshQuit(t *testing.T) {
	p := examplePod(t, "job-mesh-quit.yaml", "e2e-mesh-quit")
	// What the sidecar injector adds: the proxy, ready after a second.
	p.addContainer("istio-proxy", kit.MeshProxy()...)
	kit.MeshQuitApp(p.Manifest)
	_, logs := playJob(t, p, map[string]int{"install-tandem": 0, "close-month": 0, "istio-proxy": 0})
	kit.AssertOrder(t, logs, kit.MeshQuitOrder()...)
	kit.AssertPresent(t, logs,
		// wget got the proxy's answer: it ran after the proxy was up.
		kit.Program("close-month", "ready"),
		kit.Program("istio-proxy", "istio-proxy: quit requested, exiting"),
	)
	if l, ok := kit.Find(logs, kit.Tandem("close-month", "quit-called")); !ok || l.Field("status") != "200" ||
		l.Field("url") != "http://127.0.0.1:15020/quitquitquit" {
		t.Errorf("the main did not call the quit URL: %v", l.Fields)
	}
}
