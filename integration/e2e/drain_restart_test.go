//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// ordersAPI is a Deployment as it is written without tandem: an API that
// drains its work on SIGTERM through the database proxy beside it. inject
// gives the proxy --outlive-main 60s (the grace period), --restart always
// and --stop-when deletion (restartPolicy unset: Always). The minute is
// room for a loaded machine: a drain that outlasts --outlive-main loses
// its proxy.
const ordersAPI = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders-api
spec:
  replicas: 1
  selector:
    matchLabels: {app: orders-api}
  template:
    metadata:
      labels: {app: orders-api}
      annotations:
        tandem.sh/sidecars: cloud-sql-proxy
    spec:
      terminationGracePeriodSeconds: 60
      containers:
        - name: api
          image: registry.example.com/orders-api:1
          command: [orders-api, "--listen=:8080"]
        - name: cloud-sql-proxy
          image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1
          command: ["/cloud-sql-proxy"]
          args: ["--port=5432", "my-project:europe-west1:orders"]
`

// drainGate is the file the API's drain waits for before its first query.
// podman pod stop signals the containers one after the other, and a crash
// before the proxy's tandem got its SIGTERM would be an ordinary restart:
// the test writes it once the proxy's tandem holds the signal, so that the
// crash falls inside the hold.
const drainGate = "/run/tandem/drain-gate"

// drainingAPI waits for SIGTERM, then drains through the proxy: one query
// (under which the proxy crashes), and one retried until the restarted
// proxy answers it.
var drainingAPI = []string{"sh", "-c", fmt.Sprintf(`stop=; trap 'stop=1' TERM
echo "orders-api: serving"
until [ -n "$stop" ]; do sleep 0.1; done
echo "orders-api: SIGTERM, draining"
until [ -e %s ]; do sleep 0.1; done
standin send --name orders-api 127.0.0.1:5432 "flush 1"
until standin send --name orders-api 127.0.0.1:5432 "flush 2"; do sleep 0.2; done
echo "orders-api: drained"`, drainGate)}

// The pod is stopped (podman pod stop -t 60, the grace period: SIGTERM to
// every container) while the API drains. The proxy's tandem holds its
// SIGTERM (--outlive-main); its CMD crashes under the drain's first query,
// is restarted after its backoff, and answers the drain's second query;
// once the API exits 0 the proxy is stopped, and exits 0.
func TestDrainRestartsCrashedProxy(t *testing.T) {
	t.Parallel()
	p := manifestPod(t, "orders-api (the test's own Deployment)", inject(t, ordersAPI), "e2e-drain-restart")
	p.ownVolumes(t)
	p.Args("cloud-sql-proxy", crashingProxy(1)...)
	p.Args("api", drainingAPI...)
	pp := play(t, p)
	pp.waitStep(kit.Program("api", "orders-api: serving"), jobBound)
	pp.waitEvent("cloud-sql-proxy", "cmd-started", jobBound)

	// The drain waits on the test's own podman calls (the held signal,
	// the API's draining line), each seconds long on a loaded machine:
	// podman's kill must not come first.
	stopped := pp.stopPod(time.Minute)
	pp.waitEvent("cloud-sql-proxy", "signal-held", jobBound)
	pp.waitStep(kit.Program("api", "SIGTERM, draining"), jobBound)
	if err := os.WriteFile(filepath.Join(pp.hostDir("api", filepath.Dir(drainGate)), filepath.Base(drainGate)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	took := <-stopped
	if !pp.waitExited(exitedAfterStop, "api", "cloud-sql-proxy") {
		t.Fatal("containers still running after podman pod stop")
	}
	pp.exitCodes(map[string]int{"tandem-install": 0, "api": 0, "cloud-sql-proxy": 0})
	logs := pp.logs()
	kit.AssertOrder(t, logs, kit.MainThenStop("api", "cloud-sql-proxy",
		kit.Tandem("cloud-sql-proxy", "signal-held"),
		kit.Tandem("cloud-sql-proxy", "cmd-exited"),
		kit.Tandem("cloud-sql-proxy", "restarting"),
	)...)
	if l := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "restarting")); l.Num("exit_code") != 3 {
		t.Errorf("restarting line %v; want the crash's exit code 3", l.Fields)
	}
	starts := filterEvents(logs, kit.Tandem("cloud-sql-proxy", "cmd-started"))
	apiExit := kit.MustFind(t, logs, kit.Tandem("api", "cmd-exited"))
	if len(starts) != 2 || !starts[1].At.Before(apiExit.At) {
		t.Fatalf("the proxy's CMD started %d times; want twice, the second before the API's end at %s", len(starts), apiExit.At)
	}
	kit.AssertPresent(t, logs,
		kit.Program("cloud-sql-proxy", "exiting 3 after 1 lines"),
		kit.Program("cloud-sql-proxy", `received "flush 2"`),
		kit.Program("api", `sent "flush 2", reply "ok flush 2"`),
		kit.Program("api", "orders-api: drained"),
	)
	t.Logf("the proxy restarted %s after the pod's SIGTERM was held; pod stop took %s",
		starts[1].At.Sub(kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "signal-held")).At).Round(time.Millisecond),
		took.Round(time.Millisecond))
}

// stopPod runs `podman pod stop -t TIMEOUT` in the background, as a
// deletion would; the channel gives how long it took once it returned.
func (pp *playedPod) stopPod(timeout time.Duration) <-chan time.Duration {
	took := make(chan time.Duration, 1)
	start := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), podmanTimeout)
		defer cancel()
		if _, _, err := podman(ctx, "pod", "stop", "--time", fmt.Sprint(int(timeout.Seconds())), pp.name); err != nil {
			pp.t.Error(err)
		}
		took <- time.Since(start)
	}()
	return took
}

// filterEvents returns the lines that match e, in order.
func filterEvents(lines []kit.Line, e kit.Event) []kit.Line {
	var found []kit.Line
	for _, l := range lines {
		if e.Matches(l) {
			found = append(found, l)
		}
	}
	return found
}
