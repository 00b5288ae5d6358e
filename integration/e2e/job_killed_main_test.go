//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// waitEvent polls the pod's logs until ctr's tandem logged event.
func (pp *playedPod) waitEvent(ctr, event string, bound time.Duration) kit.Line {
	pp.t.Helper()
	return pp.waitStep(kit.Tandem(ctr, event), bound)
}

// The main container killed outright (`podman kill --signal KILL`, as the
// cgroup OOM group kill or `kubectl delete --force` do): its tandem writes
// no done file, but its lifeline ends with it, so the proxy stops and the
// pod ends: the proxy at 0, the export at 137.
func TestJobMainKilledOutright(t *testing.T) {
	p := examplePod(t, "job-done-file.yaml", "e2e-killed-main")
	p.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	p.Args("export", "sleep", "3600")
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
	if l, ok := kit.Find(logs, kit.Tandem("cloud-sql-proxy", "done-seen")); !ok || l.Field("source") != "lost" {
		t.Fatalf("the proxy's done-seen %v, want source lost", l.Fields)
	}
	exit, _ := kit.Find(logs, kit.Tandem("cloud-sql-proxy", "exiting"))
	t.Logf("the proxy's tandem exited %s after the kill", exit.At.Sub(killed).Round(time.Microsecond))
}

// Control: the same kill of a main without a lifeline (a script that ends
// with `tandem done`, today's only way without `tandem main`) leaves the
// proxy running: the pod, and a Job, would never end. Measured and
// reported, not asserted: the runtime's doing, not tandem's.
func TestControlKilledScriptMainHangs(t *testing.T) {
	p := examplePod(t, "job-done-file.yaml", "e2e-killed-script")
	p.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	p.Args("export", "sh", "-c", "sleep 3600; tandem done --file /run/tandem/done")
	p.WithoutTandem("export")
	pp := play(t, p)
	pp.waitEvent("cloud-sql-proxy", "cmd-started", jobBound)
	if _, _, err := podman(context.Background(), "kill", "--signal", "KILL", pp.ctrName("export")); err != nil {
		t.Fatal(err)
	}
	if !pp.waitExited(jobBound, "export") {
		t.Fatal("the killed export did not end")
	}
	ended := pp.waitExited(sidecarStopBound, "cloud-sql-proxy")
	t.Logf("control: the script main was killed; %s later the proxy had ended: %v", sidecarStopBound, ended)
}
