//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
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
	took := n.mustComplete(m.Name(), start, onFailureBound)
	p := n.onlyPod(m.Name())

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
	ignored, ok := kit.FindFunc(logs, func(l kit.Line) bool {
		return l.Ctr == "cloud-sql-proxy" && l.Is("main-failed") &&
			l.Field("path") == "/run/tandem/done" && l.Field("exit_code") == "1"
	})
	if !ok {
		t.Fatalf("the proxy logged no failed done file (exit_code 1) that it kept running through:\n%s", kit.Format(logs))
	}
	kit.AssertOrder(t, logs, kit.MainThenStop("export", "cloud-sql-proxy",
		kit.Tandem("cloud-sql-proxy", "cmd-started"),
		kit.Tandem("export", "cmd-started"), // the second run's: the first one's logs are gone
	)...)
	if done := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "done-seen")); done.Field("main_exit_code") != "0" {
		t.Errorf("the proxy stopped on a done file with exit code %q; want the second run's 0", done.Field("main_exit_code"))
	}
	kit.AssertOrder(t, logs, kit.Tandem("cloud-sql-proxy", "cmd-started"), kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
	if done := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "done-seen")); done.At.Before(ignored.At) {
		t.Errorf("the proxy stopped at %s, before it saw the failed run at %s", done.At, ignored.At)
	}
	t.Logf("OnFailure: the export failed, was restarted in the same pod and succeeded; the proxy ran on (restartCount 0); apply → Complete in %s",
		took.Round(100*time.Millisecond))
}

// onFailureExport makes a namespace and the done-file Job example under
// restartPolicy OnFailure, its proxy under --stop-when success: the export
// runs firstRun (shell) the first time, and on its retry sends the proxy
// its query and exits 0.
func onFailureExport(t *testing.T, firstRun string) (*namespace, *kit.Manifest) {
	t.Helper()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, "job-done-file.yaml")
	m.SetPodSpec("restartPolicy", "OnFailure")
	m.AddFlags("cloud-sql-proxy", "--stop-when=success")
	m.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	// The emptyDir outlives the container: the second run sees the mark.
	m.Args("export", "sh", "-c", `if [ -e /run/tandem/tried ]; then
  standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'
else
  touch /run/tandem/tried; `+firstRun+`
fi`)
	return n, m
}
