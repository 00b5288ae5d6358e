//go:build k8s

package k8s

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// The istio-proxy that the mesh would inject is a stand-in that is not
// wrapped: the main waits for its readiness endpoint and, when the work is
// done, POSTs its quit endpoint, on which it exits 0: the Job completes.
func TestJobMeshQuit(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	m := example(t, "job-mesh-quit.yaml")
	// What the sidecar injector adds: the proxy, ready after a second.
	m.AddContainer(kit.Last, ctr("istio-proxy", kit.MeshProxy()...))
	kit.MeshQuitApp(m)
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"install-tandem": 0, "close-month": 0, "istio-proxy": 0})
	kit.AssertOrder(t, pj.logs, kit.MeshQuitOrder()...)
	// wget's "ready" is the proxy's answer, printed after tandem's wait
	// saw the proxy ready and before the exec. Not after cmd-started:
	// tandem logs that once the process runs, and a program as quick as
	// wget can print first.
	kit.AssertOrder(t, pj.logs, kit.Tandem("close-month", "condition-holds"), kit.Program("close-month", "ready"))
}

// With shareProcessNamespace and no shared volume, the main finds the
// sidecar by its command line and sends it the done signal.
func TestJobSharedPID(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-maintenance")
	m := example(t, "job-shared-pid.yaml")
	if yamlnode.Lookup(m.PodSpec(), "volumes") != nil {
		t.Fatal("job-shared-pid.yaml must work without a shared volume")
	}
	m.Args("proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432", "--listen-after", "1s")
	m.Args("vacuum", "standin", "send", "--name", "psql", "127.0.0.1:5432", "VACUUM (ANALYZE) orders")
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"vacuum": 0, "proxy": 0})
	kit.AssertOrder(t, pj.logs, kit.MainThenStop("vacuum", "proxy",
		kit.Tandem("proxy", "cmd-started"),
		kit.Tandem("vacuum", "cmd-started"),
	)...)
	if l := kit.MustFind(t, pj.logs, kit.Tandem("proxy", "done-seen")); l.Field("source") != "done-signal" {
		t.Errorf("the sidecar saw the end through %q; want done-signal", l.Field("source"))
	}
	kit.SidecarGap(t, pj.logs, "vacuum", "proxy", sidecarStopBound)
}

// The sidecar writes its ready file once its port answers, the main starts
// only then, and the database is stopped with SIGINT (--stop-signal INT).
func TestJobStartupOrder(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	m := example(t, "job-startup-order.yaml")
	// A database that takes its time to listen (initdb).
	m.Args("postgres", "standin", "serve", "--name", "postgres", "--tcp", "127.0.0.1:5432", "--listen-after", "1500ms")
	// Dials once: started before the database listens, it fails.
	m.Args("migrate", "standin", "send", "--name", "flyway", "127.0.0.1:5432", "CREATE TABLE orders (id bigint)")
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"install-tandem": 0, "migrate": 0, "postgres": 0})
	kit.AssertOrder(t, pj.logs, kit.MainThenStop("migrate", "postgres",
		kit.Tandem("postgres", "cmd-started"),
		kit.Tandem("postgres", "ready-written"),
		kit.Tandem("migrate", "cmd-started"),
	)...)
	kit.AssertOrder(t, pj.logs, kit.Tandem("postgres", "stop-sent"), kit.Program("postgres", "postgres: interrupt, exiting"))
	if l := kit.MustFind(t, pj.logs, kit.Tandem("postgres", "stop-sent")); l.Field("signal") != "SIGINT" {
		t.Errorf("stop signal %q; want SIGINT", l.Field("signal"))
	}
	kit.SidecarGap(t, pj.logs, "migrate", "postgres", sidecarStopBound)
}
