//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// threeSidecars is an export Job as it is written without tandem, with
// three sidecars in the order they depend on each other: the database
// proxy, the pooler in front of it, the log shipper last. Their commands
// are placeholders that the tests replace with stand-ins.
const threeSidecars = `apiVersion: batch/v1
kind: Job
metadata:
  name: orders-export
spec:
  template:
    metadata:
      annotations:
        tandem.sh/sidecars: cloud-sql-proxy,pgbouncer,fluent-bit
    spec:
      restartPolicy: Never
      containers:
        - name: cloud-sql-proxy
          image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1
          command: ["/cloud-sql-proxy", "--port=5432", "my-project:europe-west1:orders"]
        - name: pgbouncer
          image: registry.example.com/pgbouncer:1.22
          command: [pgbouncer, /etc/pgbouncer/pgbouncer.ini]
        - name: fluent-bit
          image: registry.example.com/fluent-bit:3
          command: [fluent-bit, --config=/etc/fluent-bit/fluent-bit.conf]
        - name: export
          image: postgres:16
          command: [pg_dump, "--host=127.0.0.1", "--port=6432", "--dbname=orders"]
`

// serveAs is a stand-in sidecar that listens on port.
func serveAs(name string, port int) []string {
	return []string{"standin", "serve", "--name", name, "--tcp", fmt.Sprintf("127.0.0.1:%d", port)}
}

// sendUntilAnswered is a shell step that sends line to port until a
// sidecar answers it.
func sendUntilAnswered(port int, line string) string {
	return fmt.Sprintf("until standin send --name pg_dump 127.0.0.1:%d '%s'; do sleep 0.2; done", port, line)
}

// The Job injected in classic mode, played: once the export is done, the
// sidecar declared last stops first, and each one before it only once the
// one after it has stopped (its stopped file), as native sidecars stop in
// reverse order; every container exits 0.
func TestInjectClassicReverseStopOrder(t *testing.T) {
	t.Parallel()
	p := manifestPod(t, "orders-export, three sidecars (the test's own Job)", inject(t, threeSidecars), "e2e-classic-order")
	p.ownVolumes(t)
	p.Args("cloud-sql-proxy", serveAs("cloud-sql-proxy", 5432)...)
	p.Args("pgbouncer", serveAs("pgbouncer", 6432)...)
	p.Args("fluent-bit", serveAs("fluent-bit", 2020)...)
	// The export reaches every sidecar, so each one runs when it ends: a
	// sidecar that starts after the export's end has nothing to stop.
	p.Args("export", "sh", "-c", sendUntilAnswered(2020, "log: export starts")+" && "+sendUntilAnswered(6432, "COPY orders TO STDOUT"))
	_, logs := playJob(t, p, map[string]int{"tandem-install": 0, "cloud-sql-proxy": 0, "pgbouncer": 0, "fluent-bit": 0, "export": 0})
	kit.AssertOrder(t, logs,
		kit.Tandem("export", "cmd-exited"),
		kit.Tandem("fluent-bit", "stop-sent"),
		kit.Tandem("fluent-bit", "cmd-exited"),
		kit.Tandem("pgbouncer", "done-seen"),
		kit.Tandem("pgbouncer", "stop-sent"),
		kit.Tandem("pgbouncer", "cmd-exited"),
		kit.Tandem("cloud-sql-proxy", "done-seen"),
		kit.Tandem("cloud-sql-proxy", "stop-sent"),
		kit.Tandem("cloud-sql-proxy", "exiting"),
	)
	for ctr, next := range map[string]string{"pgbouncer": "fluent-bit", "cloud-sql-proxy": "pgbouncer"} {
		if done := kit.MustFind(t, logs, kit.Tandem(ctr, "done-seen")); done.Field("path") != "/run/tandem/"+next+".stopped" {
			t.Errorf("%s's last done file was %q; want %s's stopped file: %v", ctr, done.Field("path"), next, done.Fields)
		}
	}
	exportEnd := kit.MustFind(t, logs, kit.Tandem("export", "cmd-exited")).At
	for _, ctr := range []string{"fluent-bit", "pgbouncer", "cloud-sql-proxy"} {
		t.Logf("%s stopped %s after the export ended", ctr,
			kit.MustFind(t, logs, kit.Tandem(ctr, "cmd-exited")).At.Sub(exportEnd).Round(time.Microsecond))
	}
}

// The same Job, with a pgbouncer that exits 1 and a fluent-bit that exits
// 0 while the export runs, each once it answered the export's first line:
// inject's --restart always starts both again, the export reaches both
// restarted and exits 0, and so does every container: the pod's result is
// the export's, where a classic pod would have failed with pgbouncer's 1
// and left the export without its shipper.
func TestInjectClassicSidecarsRestarted(t *testing.T) {
	t.Parallel()
	p := manifestPod(t, "orders-export, three sidecars (the test's own Job)", inject(t, threeSidecars), "e2e-classic-restart")
	p.ownVolumes(t)
	p.Args("cloud-sql-proxy", serveAs("cloud-sql-proxy", 5432)...)
	p.Args("pgbouncer", flakySidecar("pgbouncer", 6432, 1, 1)...)
	p.Args("fluent-bit", flakySidecar("fluent-bit", 2020, 0, 1)...)
	p.Args("export", "sh", "-c", strings.Join([]string{
		sendUntilAnswered(6432, "COPY orders TO STDOUT"), sendUntilAnswered(2020, "export started"),
		sendUntilAnswered(6432, "COPY customers TO STDOUT"), sendUntilAnswered(2020, "export finished"),
	}, " && "))
	_, logs := playJob(t, p, map[string]int{"tandem-install": 0, "cloud-sql-proxy": 0, "pgbouncer": 0, "fluent-bit": 0, "export": 0})
	exportEnd := kit.MustFind(t, logs, kit.Tandem("export", "cmd-exited"))
	for ctr, code := range map[string]int{"pgbouncer": 1, "fluent-bit": 0} {
		restarts := filterEvents(logs, kit.Tandem(ctr, "restarting"))
		if len(restarts) != 1 || restarts[0].Num("exit_code") != code || !restarts[0].At.Before(exportEnd.At) {
			t.Errorf("%s's restarts %v; want one, of exit code %d, before the export's end", ctr, restarts, code)
		}
	}
	kit.AssertPresent(t, logs,
		kit.Program("pgbouncer", "exiting 1 after 1 lines"),
		kit.Program("pgbouncer", `received "COPY customers TO STDOUT"`),
		kit.Program("fluent-bit", "exiting 0 after 1 lines"),
		kit.Program("fluent-bit", `received "export finished"`),
	)
	kit.AssertOrder(t, logs, kit.MainThenStop("export", "cloud-sql-proxy")...)
}

// neverStartedStopBound is how long the proxy of a pod whose main never
// started may take to leave once the pod is stopped: it forwards the pod's
// SIGTERM at once, the rest is room for podman on a loaded machine (its
// CLI's start, and the restarting main it may stop first); far below the
// minute of the grace period that a held signal would take.
const neverStartedStopBound = 40 * time.Second

// An injected Deployment whose API has a bad command (exit 127: no such
// program; podman starts it again and again, as the kubelet would): there
// is no main for the proxy to outlive, so podman pod stop -t 60 takes
// seconds, not the minute of the grace period.
func TestInjectClassicMainNeverStarts(t *testing.T) {
	t.Parallel()
	p := neverStartedPod(t, "e2e-classic-bad-cmd")
	p.Args("api", "/usr/local/bin/orders-api", "--listen=:8080")
	pp := play(t, p)
	pp.waitEvent("api", "start-failed", jobBound)
	pp.stopNeverStarted()
}

// The same Deployment whose API container the runtime cannot start at all
// (its workingDir is a file of the image: the kubelet's
// CreateContainerError; a bad image is the same, but podman kube play
// plays no pod whose image it cannot find): no tandem ran in it, so there
// is no done file and no lifeline, and --outlive-main 60s must not hold
// the proxy for a main that will never come.
func TestInjectClassicMainContainerNeverRuns(t *testing.T) {
	t.Parallel()
	p := neverStartedPod(t, "e2e-classic-no-run")
	p.SetContainerField("api", "workingDir", "/tandem")
	pp := playFailingStart(t, p, `workdir "/tandem" exists on container`)
	if st := pp.state("api"); st.Status != "created" {
		t.Fatalf("the API container is %s; want created, never run", st.Status)
	}
	pp.stopNeverStarted()
}

// neverStartedPod is the injected ordersAPI (grace period a minute: its
// proxy's --outlive-main is 60s) with the proxy as a stand-in.
func neverStartedPod(t *testing.T, name string) *pod {
	t.Helper()
	p := manifestPod(t, "orders-api, grace period 60s (the test's own Deployment)", inject(t, ordersAPI), name)
	p.ownVolumes(t)
	p.Args("cloud-sql-proxy", serveAs("cloud-sql-proxy", 5432)...)
	return p
}

// stopNeverStarted stops the pod once its proxy runs (podman pod stop -t
// 60, the grace period) and asserts that the proxy left within seconds,
// held nothing and exited 0. The pod's stop as a whole is only logged:
// podman may restart the failing main (restartPolicy OnFailure) after the
// stop began, and that new main, which no signal reaches, waits for the
// proxy until podman's kill; the kubelet restarts nothing in a pod being
// deleted.
func (pp *playedPod) stopNeverStarted() {
	t := pp.t
	t.Helper()
	pp.waitEvent("cloud-sql-proxy", "cmd-started", jobBound)
	stopAt := time.Now()
	took := <-pp.stopPod(time.Minute)
	if !pp.waitExited(exitedAfterStop, "cloud-sql-proxy") {
		t.Fatal("the proxy still runs after podman pod stop")
	}
	logs := pp.logs()
	left := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "exiting")).At.Sub(stopAt)
	if left > neverStartedStopBound {
		t.Errorf("the proxy's tandem exited %s after podman pod stop began; want within %s, not the grace period", left.Round(time.Millisecond), neverStartedStopBound)
	}
	if l, ok := kit.Find(logs, kit.Tandem("cloud-sql-proxy", "signal-held")); ok {
		t.Errorf("the proxy held the pod's SIGTERM with no main to outlive: %v", l.Fields)
	}
	pp.exitCodes(map[string]int{"cloud-sql-proxy": 0})
	t.Logf("podman pod stop -t 60: the proxy left %s after it began; the pod stopped in %s", left.Round(time.Millisecond), took.Round(time.Millisecond))
}
