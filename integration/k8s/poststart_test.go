//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The proxy is listed first and listens only after two seconds; its
// postStart hook `tandem wait --for tcp:…` holds the export's start until
// then. The export dials once, without retry: it succeeds only if it
// started after the proxy listened.
func TestJobPostStartOrder(t *testing.T) {
	t.Parallel()
	pj, _ := playPostStart(t, true)
	pj.exitCodes(map[string]int{"cloud-sql-proxy": 0, "export": 0})
	proxy, _ := pj.pod.container("cloud-sql-proxy")
	export, _ := pj.pod.container("export")
	assertExportBeforeProxyStop(t, pj.logs)
	proxyStart := kit.MustFind(t, pj.logs, kit.Tandem("cloud-sql-proxy", "cmd-started")).At
	exportStart := kit.MustFind(t, pj.logs, kit.Tandem("export", "cmd-started")).At
	if gap := exportStart.Sub(proxyStart); gap < postStartListenAfter {
		t.Errorf("the export started %s after the proxy; the hook should have held it %s, until the proxy listened", gap, postStartListenAfter)
	}
	t.Logf("the export started %s after the proxy (which listened after %s); containers started at %s and %s",
		exportStart.Sub(proxyStart).Round(time.Millisecond), postStartListenAfter,
		proxy.State.Terminated.StartedAt.Format(time.TimeOnly), export.State.Terminated.StartedAt.Format(time.TimeOnly))
}

// Control: the same Job without the hook, its proxy listening only after
// the test's time (a loaded kubelet can take the proxy's 2 s to start the
// next container): nothing holds the export, whose only dial fails: the
// Job fails. How it ends is the kubelet's timing: reported (by
// playPostStart), not asserted.
func TestControlPostStartOrderWithoutHook(t *testing.T) {
	t.Parallel()
	playPostStart(t, false)
}

// postStartListenAfter is how long the proxy stand-in takes to listen.
const postStartListenAfter = 2 * time.Second

// playPostStart plays job-poststart-order.yaml, with or without the proxy's
// postStart hook, never retried, and returns how the Job ended.
func playPostStart(t *testing.T, hook bool) (playedJob, string) {
	t.Helper()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, "job-poststart-order.yaml")
	m.Set(0, "spec", "backoffLimit")
	listenAfter := postStartListenAfter
	if !hook {
		listenAfter = jobBound
	}
	m.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432",
		"--listen-after", listenAfter.String())
	m.Args("export", "standin", "send", "--name", "pg_dump", "127.0.0.1:5432", "COPY orders TO STDOUT")
	if !hook {
		m.DeleteContainerField("cloud-sql-proxy", "lifecycle")
	}
	start := n.apply(m)
	end, at, err := n.waitJob(m.Name(), jobBound)
	if err != nil {
		t.Fatal(err)
	}
	p := n.onlyPod(m.Name())
	t.Logf("job %s, hook %v: apply → %s in %s", m.Name(), hook, end, at.Sub(start).Round(time.Millisecond))
	if hook && end != "Complete" {
		t.Fatalf("job %s ended %s; want Complete", m.Name(), end)
	}
	return playedJob{n: n, pod: p, logs: n.podLogs(p), took: at.Sub(start)}, end
}

// assertExportBeforeProxyStop asserts the export Job's order: the proxy
// started, the export ran to its end (pg_dump finished), and then its done
// file stopped the proxy.
func assertExportBeforeProxyStop(t *testing.T, logs []kit.Line) {
	t.Helper()
	kit.AssertOrder(t, logs,
		kit.Tandem("cloud-sql-proxy", "cmd-started"),
		kit.Tandem("export", "cmd-started"), kit.Tandem("export", "cmd-exited"),
		kit.Tandem("cloud-sql-proxy", "done-seen"), kit.Tandem("cloud-sql-proxy", "exiting"),
	)
	// pg_dump's line is ordered after the proxy's start, which the hook
	// held the export for, not after the export's cmd-started: tandem logs
	// that once the process runs, and a program this quick can print first.
	kit.AssertOrder(t, logs, kit.Tandem("cloud-sql-proxy", "cmd-started"), kit.Program("export", "pg_dump: finished"))
}
