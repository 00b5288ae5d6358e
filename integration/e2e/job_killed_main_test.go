//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"
)

// waitEvent polls the pod's logs until ctr's tandem logged event.
func (pp *playedPod) waitEvent(ctr, event string, bound time.Duration) logLine {
	pp.t.Helper()
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		if l, ok := find(pp.logs(), ctr, event); ok {
			return l
		}
		time.Sleep(100 * time.Millisecond)
	}
	pp.t.Fatalf("%s logged no %s within %s", ctr, event, bound)
	return logLine{}
}

// The main container killed outright (`podman kill --signal KILL`, as the
// cgroup OOM group kill or `kubectl delete --force` do): its tandem writes
// no done file, but its lifeline ends with it, so the proxy stops and the
// pod ends: the proxy at 0, the export at 137.
func TestJobMainKilledOutright(t *testing.T) {
	p := examplePod(t, "job-done-file.yaml", "e2e-killed-main")
	p.args(t, "cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	p.args(t, "export", "sleep", "3600")
	pp := play(t, p)
	pp.waitEvent("export", "cmd-started", jobBound)
	pp.waitEvent("cloud-sql-proxy", "main-attached", jobBound)
	killed := time.Now()
	if _, _, err := podman(context.Background(), "kill", "--signal", "KILL", pp.ctrName("export")); err != nil {
		t.Fatal(err)
	}
	pp.mustEnd(jobBound)
	pp.exitCodes(map[string]int{"export": 137, "cloud-sql-proxy": 0})
	logs := pp.logs()
	if l, ok := find(logs, "cloud-sql-proxy", "done-seen"); !ok || l.field("source") != "lost" {
		t.Fatalf("the proxy's done-seen %v, want source lost", l.Fields)
	}
	exit, _ := find(logs, "cloud-sql-proxy", "exiting")
	t.Logf("the proxy's tandem exited %s after the kill", exit.At.Sub(killed).Round(time.Microsecond))
}

// Control: the same kill of a main without a lifeline (a script that ends
// with `tandem done`, today's only way without `tandem main`) leaves the
// proxy running: the pod, and a Job, would never end.
func TestControlKilledScriptMainHangs(t *testing.T) {
	p := examplePod(t, "job-done-file.yaml", "e2e-killed-script")
	p.args(t, "cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	p.args(t, "export", "sh", "-c", "sleep 3600; tandem done --file /run/tandem/done")
	p.withoutTandem(t, "export")
	pp := play(t, p)
	pp.waitEvent("cloud-sql-proxy", "cmd-started", jobBound)
	if _, _, err := podman(context.Background(), "kill", "--signal", "KILL", pp.ctrName("export")); err != nil {
		t.Fatal(err)
	}
	if !pp.waitExited(jobBound, "export") {
		t.Fatal("the killed export did not end")
	}
	if pp.waitExited(sidecarStopBound, "cloud-sql-proxy") {
		t.Fatalf("the proxy ended within %s of a killed script main: the control proves nothing", sidecarStopBound)
	}
	t.Logf("control: the script main was killed; the proxy still runs %s later", sidecarStopBound)
}
