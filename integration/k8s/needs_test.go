//go:build k8s

package k8s

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
	"golang.org/x/sys/unix"
)

// needsBound is how long after its proxy was killed a Job whose export
// needs it may take to end: the export's tandem sees the lifeline drop at
// once; the rest is the kubelet's and the Job controller's round trips.
const needsBound = time.Minute

// exportReads is what the export's stand-in prints once it has read
// through the proxy.
var exportReads = kit.Program("export", `pg_dump: sent "COPY orders TO STDOUT"`)

// needsJob is examples/inject/job-plain.yaml as Job name, changed by edit,
// its export needing the proxy (tandem.sh/needs) when needs is set, and
// injected by tandemctl with flags: as users get it. The proxy serves; the
// export runs export (shell).
func needsJob(t *testing.T, name string, needs bool, edit func(*kit.Manifest), export string, flags ...string) *kit.Manifest {
	t.Helper()
	requireCluster(t)
	src, err := os.ReadFile(filepath.Join(repoRoot, "examples", "inject", "job-plain.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plain := kit.Parse(t, "inject/job-plain.yaml", src)
	plain.SetName(name)
	// The proxy's preset makes it essential by default: the control says
	// its export needs nothing, and the pod's word wins.
	neededBy := ""
	if needs {
		neededBy = "cloud-sql-proxy"
	}
	plain.Set(neededBy, "spec", "template", "metadata", "annotations", "tandem.sh/needs")
	// The stand-in proxy leaves on SIGTERM: said, so no lookup is needed
	// and the report carries no "SIGTERM assumed" warning.
	plain.Set("TERM", "spec", "template", "metadata", "annotations", "tandem.sh/stop-signal.cloud-sql-proxy")
	edit(plain)
	injected, report := injectManifest(t, plain.YAML(), flags...)
	if want := "job/" + name + ": injected (mains: export; sidecars: cloud-sql-proxy (preset cloud-sql-proxy))\n"; report != want {
		t.Fatalf("tandemctl's report: %q; want %q", report, want)
	}
	m := kit.Parse(t, "inject/job-plain.yaml", injected)
	m.Delete("metadata", "namespace")
	m.LocalImages(tandemImage, testImage)
	m.Args("cloud-sql-proxy", "/usr/local/bin/standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	m.Args("export", "sh", "-c", export)
	return m
}

// The proxy's PID 1 (its tandem) SIGKILLed from the node, as a cgroup OOM
// group kill does, in two Jobs that differ only by tandem.sh/needs (never
// retried: backoffLimit 0). The export that needs its proxy is stopped at
// once (sidecar-lost, exit 143) and its Job ends Failed; the control,
// whose export does not need it, runs on against a dead proxy: still
// Active after the first Job has failed.
func TestNeedsProxyKilledJobFails(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	const needing, control = "export-needs", "export-control"
	for _, name := range []string{needing, control} {
		n.apply(needsJob(t, name, name == needing, func(m *kit.Manifest) { m.Set(0, "spec", "backoffLimit") },
			`/usr/local/bin/standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT' && exec sleep 3600`))
	}
	sigkillProxy(t, n, control, exportReads)
	killed := sigkillProxy(t, n, needing, exportReads)

	end, at, err := n.waitJob(needing, needsBound)
	if err != nil {
		t.Fatalf("the Job whose export needs its proxy is still active %s after the proxy was SIGKILLed: %v", needsBound, err)
	}
	if end != "Failed" {
		t.Errorf("job %s ended %s; want Failed (its proxy was lost)", needing, end)
	}
	p := n.onlyPod(needing)
	playedJob{n: n, pod: p}.exitCodes(map[string]int{"cloud-sql-proxy": 137, "export": 143})
	assertTerminationMessage(t, p, "export", "main", 143, "sidecar-lost")
	lost := kit.MustFind(t, n.podLogs(p), kit.Tandem("export", "sidecar-lost"))
	if !lost.HasValue("cloud-sql-proxy") || !lost.HasValue("/run/tandem/cloud-sql-proxy.ready") {
		t.Errorf("sidecar-lost line %v; want it to name cloud-sql-proxy and its ready file", lost.Fields)
	}

	// The control: the same kill; whether its export runs on is the
	// kubelet's and the program's, reported.
	j, err := decodeJSON[job](n.run(nil, "get", "job", control, "-o", "json"))
	if err != nil {
		t.Fatal(err)
	}
	export, _ := n.onlyPod(control).container("export")
	n.run(nil, "delete", "job", control, "--wait=false")
	t.Logf("proxy SIGKILLed from the node: the Job whose export needs it ended %s %s later (the export's tandem saw it lost %s after the kill); "+
		"the control without tandem.sh/needs: ended %q, %d active, export running %v",
		end, at.Sub(killed).Round(time.Millisecond), lost.At.Sub(killed).Round(time.Millisecond), j.end(), j.Status.Active, export.running())
}

// restartPolicy OnFailure: the proxy's PID 1 SIGKILLed from the node
// during the export's first run. The export is stopped (sidecar-lost);
// the kubelet restarts both in the same pod; the export's second run
// waits for the restarted proxy to hold its lifeline and be ready again,
// reads through it and succeeds: one pod, Job complete.
//
// backoffLimit is 3, not 2: for OnFailure the Job controller counts the
// restarts of every container of the pod against it (the proxy's and the
// export's: 2), and fails the Job once they reach the limit. Seen with 2
// on this kubelet (1.32): BackoffLimitExceeded, the retry never finished.
func TestNeedsOnFailureRetriedPodCompletes(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	const name = "export-retried"
	m := needsJob(t, name, true, func(m *kit.Manifest) {
		m.SetPodSpec("restartPolicy", "OnFailure")
		m.Set(3, "spec", "backoffLimit")
	}, `send() { /usr/local/bin/standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'; }
if [ -e /run/tandem/tried ]; then send; exit; fi
touch /run/tandem/tried; send && echo 'pg_dump: first run, reading on' && exec sleep 3600`)
	start := n.apply(m)
	ctx, cancel := contextFor(onFailureBound)
	defer cancel()
	p := n.waitPod("job-name="+name, jobBound, func(p pod) bool {
		export, _ := p.container("export")
		return export.running()
	})
	firstRun := n.follow(ctx, p.Metadata.Name, "export")
	killed := sigkillProxy(t, n, name, kit.Program("export", "pg_dump: first run, reading on"))
	if !firstRun.await(kit.Tandem("export", "sidecar-lost"), needsBound) {
		t.Fatalf("the export's first run did not log sidecar-lost:\n%s", firstRun.output())
	}
	lost, _ := kit.Find(kit.ParseLogs("export", firstRun.output()), kit.Tandem("export", "sidecar-lost"))

	took := n.mustComplete(name, start, onFailureBound)
	p = n.onlyPod(name)
	for _, ctr := range []string{"export", "cloud-sql-proxy"} {
		cs, _ := p.container(ctr)
		if code, ended := cs.exitCode(); cs.RestartCount != 1 || !ended || code != 0 {
			t.Errorf("%s: restartCount %d, ended %v with %d; want restarted once, then exit 0", ctr, cs.RestartCount, ended, code)
		}
	}
	logs := n.podLogs(p) // the second runs'
	kit.AssertOrder(t, logs, kit.MainThenStop("export", "cloud-sql-proxy",
		kit.Tandem("cloud-sql-proxy", "cmd-started"),
		kit.Tandem("export", "cmd-started"),
	)...)
	kit.AssertOrder(t, logs, kit.Tandem("export", "cmd-started"), exportReads)
	kit.AssertPresent(t, logs, kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
	t.Logf("OnFailure, proxy SIGKILLed: the export saw it lost %s after the kill; both restarted in the same pod, the retry read through the new proxy; apply → Complete in %s",
		lost.At.Sub(killed).Round(time.Millisecond), took.Round(100*time.Millisecond))
}

// sigkillProxy waits for Job name's pod with its proxy running and for
// started in its containers' logs, then SIGKILLs the proxy's PID 1 (its
// tandem) from the node. It returns when the kill was sent.
func sigkillProxy(t *testing.T, n *namespace, name string, started kit.Event) time.Time {
	t.Helper()
	p := n.waitPod("job-name="+name, jobBound, func(p pod) bool {
		proxy, _ := p.container("cloud-sql-proxy")
		ctr, _ := p.container(started.Ctr)
		return proxy.running() && ctr.running()
	})
	ctx, cancel := contextFor(jobBound)
	defer cancel()
	if !n.follow(ctx, p.Metadata.Name, started.Ctr).await(started, time.Minute) {
		t.Fatalf("job %s: no %s within a minute", name, started)
	}
	proxy, _ := p.container("cloud-sql-proxy")
	pid := containerPID(t, proxy.ContainerID)
	if err := unix.Kill(pid, unix.SIGKILL); err != nil {
		t.Fatalf("kill -KILL %d (the proxy's PID 1): %v", pid, err)
	}
	return time.Now()
}

// Native mode (--mode native): the proxy is a native sidecar under `tandem
// sidecar --ready-file`, the export under `tandem main --needs`. The
// kubelet restarts the proxy killed outright, but each restart is a new
// tandem: the export was attached to the one that died, so it stops
// (sidecar-lost) rather than run on while the proxy is gone, and the Job
// (restartPolicy Never, backoffLimit 0) ends Failed.
func TestNeedsNativeProxyKilledJobFails(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	const name = "export-native"
	n.apply(needsJob(t, name, true, func(m *kit.Manifest) { m.Set(0, "spec", "backoffLimit") },
		`/usr/local/bin/standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT' && exec sleep 3600`, "--mode", "native"))
	killed := sigkillProxy(t, n, name, exportReads)
	end, at, err := n.waitJob(name, needsBound)
	if err != nil || end != "Failed" {
		t.Fatalf("job %s: ended %q (%v) within %s of its native proxy's kill; want Failed", name, end, err, needsBound)
	}
	p := n.onlyPod(name)
	playedJob{n: n, pod: p}.exitCodes(map[string]int{"export": 143})
	assertTerminationMessage(t, p, "export", "main", 143, "sidecar-lost")
	t.Logf("native mode, proxy SIGKILLed from the node: the Job ended %s %s later", end, at.Sub(killed).Round(time.Millisecond))
}

// Native mode, nothing killed: the export reads through its proxy and
// exits 0, then the kubelet stops the native proxy. That stop comes after
// the export's tandem ended, so it is never taken for a loss: the Job
// completes.
func TestNeedsNativeJobCompletes(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := needsJob(t, "export-native-ok", true, func(*kit.Manifest) {},
		`/usr/local/bin/standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'`, "--mode", "native")
	pj := playJob(t, n, m)
	pj.exitCodes(map[string]int{"tandem-install": 0, "export": 0})
	kit.AssertOrder(t, pj.logs, kit.Tandem("export", "cmd-started"), exportReads)
	if l, ok := kit.Find(pj.logs, kit.Tandem("export", "sidecar-lost")); ok {
		t.Errorf("the export reported its proxy lost on a normal end: %v", l.Fields)
	}
}
