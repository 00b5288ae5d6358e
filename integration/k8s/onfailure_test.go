//go:build k8s

package k8s

import (
	"testing"
	"time"
)

// onFailureBound: the kubelet restarts a failed container after a 10 s
// back-off.
const onFailureBound = 3 * time.Minute

// restartPolicy OnFailure: the kubelet retries a failed main in the same
// pod. The export fails on its first run and succeeds on the second; its
// proxy, under --stop-when success, ignores the first done file (exit 1),
// is never restarted, and stops after the second: one pod, Job complete.
func TestJobOnFailureStopWhenSuccess(t *testing.T) {
	t.Parallel()
	n, m := onFailureExport(t, `echo 'pg_dump: connection reset'; exit 1`)
	start := n.apply(m)
	took := n.mustComplete(m.name(), start, onFailureBound)
	p := n.onlyPod(m.name())

	export, _ := p.container("export")
	proxy, _ := p.container("cloud-sql-proxy")
	// OnFailure restarts only a failed container. (Its lastState and
	// previous logs are gone once the pod has completed.)
	if export.RestartCount != 1 {
		t.Errorf("export: restartCount %d; want 1", export.RestartCount)
	}
	if code, ended := export.exitCode(); !ended || code != 0 {
		t.Errorf("export's second run: ended %v with %d; want 0", ended, code)
	}
	if code, ended := proxy.exitCode(); proxy.RestartCount != 0 || !ended || code != 0 {
		t.Errorf("proxy: restartCount %d, ended %v with %d; want never restarted, exit 0", proxy.RestartCount, ended, code)
	}
	logs := n.podLogs(p)
	// The first run's done file (exit 1), seen and ignored.
	ignored, ok := findFunc(logs, func(l logLine) bool {
		return l.Ctr == "cloud-sql-proxy" && l.is("main-failed") &&
			l.field("path") == "/run/tandem/done" && l.field("exit_code") == "1"
	})
	if !ok {
		t.Fatalf("the proxy logged no failed done file (exit_code 1) that it kept running through:\n%s", joinLines(logs))
	}
	assertOrder(t, logs,
		ev("cloud-sql-proxy", "cmd-started"),
		ev("export", "cmd-started"), // the second run's: the first one's logs are gone
		ev("export", "cmd-exited"),
		ev("cloud-sql-proxy", "done-seen"),
		ev("cloud-sql-proxy", "stop-sent"),
		ev("cloud-sql-proxy", "exiting"),
	)
	if done := mustFind(t, logs, ev("cloud-sql-proxy", "done-seen")); done.field("main_exit_code") != "0" {
		t.Errorf("the proxy stopped on a done file with exit code %q; want the second run's 0", done.field("main_exit_code"))
	}
	assertOrder(t, logs, ev("cloud-sql-proxy", "cmd-started"), out("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
	if done := mustFind(t, logs, ev("cloud-sql-proxy", "done-seen")); done.At.Before(ignored.At) {
		t.Errorf("the proxy stopped at %s, before it saw the failed run at %s", done.At, ignored.At)
	}
	t.Logf("OnFailure: the export failed, was restarted in the same pod and succeeded; the proxy ran on (restartCount 0); apply → Complete in %s",
		took.Round(100*time.Millisecond))
}

// onFailureExport makes a namespace and the done-file Job example under
// restartPolicy OnFailure, its proxy under --stop-when success: the export
// runs firstRun (shell) the first time, and on its retry sends the proxy
// its query and exits 0.
func onFailureExport(t *testing.T, firstRun string) (*namespace, *manifest) {
	t.Helper()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, "job-done-file.yaml")
	m.set(t, "restartPolicy", "OnFailure")
	m.addFlags(t, "cloud-sql-proxy", "--stop-when=success")
	m.args(t, "cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	// The emptyDir outlives the container: the second run sees the mark.
	m.args(t, "export", "sh", "-c", `if [ -e /run/tandem/tried ]; then
  standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'
else
  touch /run/tandem/tried; `+firstRun+`
fi`)
	return n, m
}
