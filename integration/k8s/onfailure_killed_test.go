//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// restartPolicy OnFailure and --stop-when success, the main killed
// outright once: its first run's PID 1 (its tandem) is SIGKILLed from the
// node, so no done file is written. The proxy's tandem sees the lifeline
// drop (main-lost), counts it as a failed main and keeps the proxy up; the
// kubelet restarts the export in the same pod, the retried export succeeds,
// its done file stops the proxy: one pod, Job complete, proxy never
// restarted and exit 0.
func TestJobOnFailureMainKilledOnce(t *testing.T) {
	t.Parallel()
	n, m := onFailureExport(t, `echo 'pg_dump: first run, hanging'; exec sleep 3600`)
	start := n.apply(m)
	// The mark is made: the restarted export takes the other branch.
	killed := sigkillExport(t, n, m, onFailureBound, kit.Program("export", "pg_dump: first run, hanging"),
		"the export's first run did not start within a minute")

	took := n.mustComplete(m.Name(), start, onFailureBound)
	logs := checkRetriedOnce(t, n, n.onlyPod(m.Name()))
	kit.AssertOrder(t, logs, kit.MainThenStop("export", "cloud-sql-proxy",
		kit.Tandem("cloud-sql-proxy", "cmd-started"),
		kit.Tandem("cloud-sql-proxy", "main-lost"),
		kit.Tandem("export", "cmd-started"), // the second run's: the first one's logs are gone
	)...)
	lost := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "main-lost"))
	done := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "done-seen"))
	if done.Field("source") != "done-file" || done.Field("main_exit_code") != "0" {
		t.Errorf("the proxy stopped on %s with exit code %q; want the second run's done file, 0", done.Field("source"), done.Field("main_exit_code"))
	}
	kit.AssertOrder(t, logs, kit.Tandem("cloud-sql-proxy", "main-lost"), kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
	kit.SidecarGap(t, logs, "export", "cloud-sql-proxy", sidecarStopBound)
	t.Logf("OnFailure, main SIGKILLed once: the proxy saw it lost %s after the kill and ran on; the retry succeeded, proxy stopped %s after the kill; apply → Complete in %s",
		lost.At.Sub(killed).Round(time.Millisecond), done.At.Sub(killed).Round(100*time.Millisecond), took.Round(100*time.Millisecond))
}

// checkRetriedOnce asserts the pod's end: the export restarted once and
// succeeded, the proxy never restarted and exited 0. It returns the logs.
func checkRetriedOnce(t *testing.T, n *namespace, p pod) []kit.Line {
	t.Helper()
	export, _ := p.container("export")
	proxy, _ := p.container("cloud-sql-proxy")
	if export.RestartCount != 1 {
		t.Errorf("export: restartCount %d; want 1 (killed once, then succeeded)", export.RestartCount)
	}
	if code, ended := export.exitCode(); !ended || code != 0 {
		t.Errorf("export's second run: ended %v with %d; want 0", ended, code)
	}
	if code, ended := proxy.exitCode(); proxy.RestartCount != 0 || !ended || code != 0 {
		t.Errorf("proxy: restartCount %d, ended %v with %d; want never restarted, exit 0", proxy.RestartCount, ended, code)
	}
	return n.podLogs(p)
}
