//go:build k8s

package k8s

import "testing"

// The istio-proxy that the mesh would inject is a stand-in that is not
// wrapped: the main waits for its readiness endpoint and, when the work is
// done, POSTs its quit endpoint, on which it exits 0: the Job completes.
func TestJobMeshQuit(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	m := example(t, "job-mesh-quit.yaml")
	// What the sidecar injector adds: the proxy, ready after a second.
	m.inject(ctr("istio-proxy", "standin", "serve", "--name", "istio-proxy",
		"--http", "127.0.0.1:15021", "--http", "127.0.0.1:15020", "--listen-after", "1s"))
	// busybox wget for curl: through the proxy, which must be up.
	m.args(t, "close-month", "wget", "-q", "-O", "-", "http://127.0.0.1:15021/healthz/ready")
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"install-tandem": 0, "close-month": 0, "istio-proxy": 0})
	assertOrder(t, pj.logs,
		ev("close-month", "cmd-started"),
		ev("close-month", "cmd-exited"),
		out("istio-proxy", "istio-proxy: received POST /quitquitquit"),
	)
	assertOrder(t, pj.logs, ev("close-month", "cmd-started"), out("close-month", "ready"))
}

// With shareProcessNamespace and no shared volume, the main finds the
// sidecar by its command line and sends it the done signal.
func TestJobSharedPID(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-maintenance")
	m := example(t, "job-shared-pid.yaml")
	if _, ok := m.podSpec()["volumes"]; ok {
		t.Fatal("job-shared-pid.yaml must work without a shared volume")
	}
	m.args(t, "proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432", "--listen-after", "1s")
	m.args(t, "vacuum", "standin", "send", "--name", "psql", "127.0.0.1:5432", "VACUUM (ANALYZE) orders")
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"vacuum": 0, "proxy": 0})
	assertOrder(t, pj.logs,
		ev("proxy", "cmd-started"),
		ev("vacuum", "cmd-started"),
		ev("vacuum", "cmd-exited"),
		ev("proxy", "done-seen"),
		ev("proxy", "stop-sent"),
		ev("proxy", "exiting"),
	)
	if l := mustFind(t, pj.logs, ev("proxy", "done-seen")); l.field("source") != "done-signal" {
		t.Errorf("the sidecar saw the end through %q; want done-signal", l.field("source"))
	}
	sidecarGap(t, pj.logs, "vacuum", "proxy")
}

// The sidecar writes its ready file once its port answers, the main starts
// only then, and the database is stopped with SIGINT (--stop-signal INT).
func TestJobStartupOrder(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	m := example(t, "job-startup-order.yaml")
	// A database that takes its time to listen (initdb).
	m.args(t, "postgres", "standin", "serve", "--name", "postgres", "--tcp", "127.0.0.1:5432", "--listen-after", "1500ms")
	// Dials once: started before the database listens, it fails.
	m.args(t, "migrate", "standin", "send", "--name", "flyway", "127.0.0.1:5432", "CREATE TABLE orders (id bigint)")
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"install-tandem": 0, "migrate": 0, "postgres": 0})
	assertOrder(t, pj.logs,
		ev("postgres", "cmd-started"),
		ev("postgres", "ready-written"),
		ev("migrate", "cmd-started"),
		ev("migrate", "cmd-exited"),
		ev("postgres", "done-seen"),
		ev("postgres", "stop-sent"),
		ev("postgres", "exiting"),
	)
	assertOrder(t, pj.logs, ev("postgres", "stop-sent"), out("postgres", "postgres: interrupt, exiting"))
	if l := mustFind(t, pj.logs, ev("postgres", "stop-sent")); l.field("signal") != "SIGINT" {
		t.Errorf("stop signal %q; want SIGINT", l.field("signal"))
	}
	sidecarGap(t, pj.logs, "migrate", "postgres")
}
