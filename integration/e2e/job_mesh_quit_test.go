//go:build e2e

package e2e

import (
	"testing"
)

// The istio-proxy that the mesh would inject is played by a stand-in that is
// not wrapped: the main waits for its readiness endpoint, and when the work
// is done POSTs its quit endpoint, on which it exits 0.
func TestJobMeshQuit(t *testing.T) {
	p := examplePod(t, "job-mesh-quit.yaml", "e2e-mesh-quit")
	// What the sidecar injector adds: the proxy, ready after a second.
	p.addContainer(t, "istio-proxy", "standin", "serve", "--name", "istio-proxy",
		"--http", "127.0.0.1:15021", "--http", "127.0.0.1:15020", "--listen-after", "1s")
	// busybox wget for curl: through the proxy, which must be up.
	p.args(t, "close-month", "wget", "-q", "-O", "-", "http://127.0.0.1:15021/healthz/ready")
	pp := play(t, p)
	pp.mustEnd(jobBound)

	pp.exitCodes(map[string]int{"install-tandem": 0, "close-month": 0, "istio-proxy": 0})
	logs := pp.logs()
	assertOrder(t, logs,
		event{"close-month", "condition-holds"},
		event{"close-month", "cmd-started"},
		event{"close-month", "cmd-exited"},
		event{"istio-proxy", "istio-proxy: received POST /quitquitquit"},
	)
	assertPresent(t, logs,
		// wget got the proxy's answer: it ran after the proxy was up.
		event{"close-month", "ready"},
		event{"istio-proxy", "istio-proxy: quit requested, exiting"},
	)
	if l, ok := find(logs, "close-month", "quit-called"); !ok || l.field("status") != "200" ||
		l.field("url") != "http://127.0.0.1:15020/quitquitquit" {
		t.Errorf("the main did not call the quit URL: %v", l.Fields)
	}
}
