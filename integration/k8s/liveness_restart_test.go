//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// livenessBound bounds the wait for the kubelet's restart of the proxy
// after its liveness probe failed: seconds on an idle node, stretched by a
// loaded one. A signal held as a deletion's is caught by tandem's log and
// the first run's end, not by this bound.
const livenessBound = 2 * time.Minute

// probeExecTimeout is the timeoutSeconds of an exec probe whose every
// failure the test counts: on a loaded node runc's exec of a shell can
// take longer than the default second.
const probeExecTimeout = 20

// failsFirstLivenessProbe fails its first try, marking it in the file
// marker, and passes every later one; each try may take probeExecTimeout
// (the default 1 s timeout, a failure too, would restart the proxy again).
func failsFirstLivenessProbe(marker string) map[string]any {
	return map[string]any{
		"exec": map[string]any{"command": []any{"sh", "-c",
			"test -f " + marker + " || { touch " + marker + "; exit 1; }"}},
		"initialDelaySeconds": 2, "periodSeconds": 1, "failureThreshold": 1,
		"timeoutSeconds": probeExecTimeout,
	}
}

// A liveness restart is not the pod's deletion. The classic sidecar of an
// OnFailure Job (inject: --outlive-main, --restart always, --stop-when
// success) fails its liveness probe once;
// the kubelet runs its stop on that container alone. Native sidecars get
// SIGTERM at once; so does tandem's CMD, after the short look for a main's
// termination mark finds none: no hold, no SIGKILL at the grace period,
// and the kubelet restarts the proxy while the export runs on. Then the
// export finishes and the Job completes.
func TestLivenessRestartIsNotDeletion(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	const name = "liveness-restart"
	m := needsJob(t, name, false, func(m *kit.Manifest) {
		// The kubelet restarts a container after a failed liveness probe
		// only where the pod's restartPolicy lets it (OnFailure, Always); a
		// container restart counts against the Job's backoffLimit.
		m.Set("OnFailure", "spec", "template", "spec", "restartPolicy")
		m.Set(2, "spec", "backoffLimit")
	}, `until [ -f /run/tandem/finish ]; do sleep 0.2; done`)
	m.SetContainerField("cloud-sql-proxy", "livenessProbe", failsFirstLivenessProbe("/run/tandem/probed"))
	n.apply(m)
	p := n.waitPod("job-name="+name, livenessBound, func(p pod) bool {
		proxy, _ := p.container("cloud-sql-proxy")
		return proxy.RestartCount >= 1 && proxy.running()
	})
	proxy, _ := p.container("cloud-sql-proxy")
	if last := proxy.LastState.Terminated; last == nil || last.ExitCode == 137 {
		t.Errorf("the proxy's first run ended %+v; want its CMD's own exit on the forwarded SIGTERM, not the kubelet's SIGKILL", last)
	}
	if export, _ := p.container("export"); export.RestartCount != 0 || !export.running() {
		t.Errorf("export: %d restarts, running %v; want it untouched by the proxy's restart", export.RestartCount, export.running())
	}
	logs := n.podLogs(p, "cloud-sql-proxy")
	kit.AssertOrder(t, logs,
		kit.Tandem("cloud-sql-proxy", "termination-mark-awaited"),
		kit.Tandem("cloud-sql-proxy", "signal-alone"),
		kit.Tandem("cloud-sql-proxy", "exiting"),
	)
	if _, held := kit.Find(logs, kit.Tandem("cloud-sql-proxy", "signal-held")); held {
		t.Error("the liveness restart's SIGTERM was held as a pod's deletion")
	}
	signaled := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "termination-mark-awaited")).At
	forwarded := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "signal-alone")).At

	n.run(nil, "exec", p.Metadata.Name, "-c", "export", "--", "touch", "/run/tandem/finish")
	if end, _, err := n.waitJob(name, jobBound); err != nil || end != "Complete" {
		t.Fatalf("job %s ended %q (%v) after the proxy's restart; want Complete", name, end, err)
	}
	t.Logf("liveness restart: SIGTERM forwarded %s after it came; first run ended %d (%s)",
		forwarded.Sub(signaled).Round(time.Millisecond), proxy.LastState.Terminated.ExitCode, proxy.LastState.Terminated.Reason)
}
