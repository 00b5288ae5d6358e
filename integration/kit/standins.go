package kit

import "fmt"

// The stand-ins that play an example's apps, the same in every pod suite:
// podman's pods and the kubelet's Jobs replace the apps alike, so their
// tests assert on the same lines.

// DrainLines is what the log-shipper example's app still writes after
// SIGTERM, one per 100 ms: a graceful shutdown that logs, as nginx's does
// for the requests in flight.
const DrainLines = 15

// LogShipperApps plays deployment-log-shipper.yaml's apps: nginx appends a
// line to its access log every 100 ms, fluent-bit ships each one.
func LogShipperApps(m *Manifest) {
	m.Args("web", "standin", "app", "--name", "nginx", "--log", "/var/log/nginx/access.log",
		"--every", "100ms", "--drain", fmt.Sprint(DrainLines))
	m.Args("fluent-bit", "standin", "ship", "--name", "fluent-bit", "--from", "/var/log/nginx/access.log")
}

// ExportApps plays the export Job's apps (job-done-file.yaml,
// job-init-copy.yaml): the proxy listens only after a second, and the
// export dials it once, without retry, so an export that finished proves
// it waited for the proxy.
func ExportApps(m *Manifest) {
	m.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432", "--listen-after", "1s")
	m.Args("export", "standin", "send", "--name", "pg_dump", "127.0.0.1:5432", "COPY orders TO STDOUT")
}

// ClassicDoneFile makes job-done-file.yaml the classic pod the controls
// play: the proxy and the export run without tandem.
func ClassicDoneFile(m *Manifest) {
	m.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	// Without --wait-for, the classic Job retries in a shell loop.
	m.Args("export", "sh", "-c", "until standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'; do sleep 1; done")
	m.WithoutTandem("cloud-sql-proxy")
	m.WithoutTandem("export")
}

// MeshProxy is the command of the istio-proxy container that the mesh's
// injector would add to job-mesh-quit.yaml, not wrapped by tandem: ready
// after a second, it exits 0 on POST /quitquitquit.
func MeshProxy() []string {
	return []string{"standin", "serve", "--name", "istio-proxy",
		"--http", "127.0.0.1:15021", "--http", "127.0.0.1:15020", "--listen-after", "1s"}
}

// MeshQuitApp plays job-mesh-quit.yaml's main: busybox wget for curl,
// through the proxy, which must be up.
func MeshQuitApp(m *Manifest) {
	m.Args("close-month", "wget", "-q", "-O", "-", "http://127.0.0.1:15021/healthz/ready")
}

// MeshQuitOrder is job-mesh-quit.yaml's chain: the main waited for the
// proxy, ran and ended, and only then did the proxy get its quit.
func MeshQuitOrder() []Event {
	return []Event{
		Tandem("close-month", "condition-holds"),
		Tandem("close-month", "cmd-started"),
		Tandem("close-month", "cmd-exited"),
		Program("istio-proxy", "istio-proxy: received POST /quitquitquit"),
	}
}
