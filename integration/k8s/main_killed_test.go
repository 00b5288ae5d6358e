//go:build k8s

package k8s

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
	"golang.org/x/sys/unix"
)

// lifelineBound is how long after its main was killed the Job may take to
// end: the sidecar sees the lifeline drop at once; the rest is the
// kubelet's and the Job controller's round trips.
const lifelineBound = time.Minute

// The export's PID 1 (its tandem) is SIGKILLed from the node, as a cgroup
// OOM group kill does: no done file is written. The proxy's tandem sees the
// main's lifeline released without a done file (reason lost), stops the
// proxy and exits 0; the pod fails with the export's 137 and the Job
// (never retried) ends Failed within seconds instead of staying active.
// Needs the lifeline (docs/files.md); without it, this shows the hang.
func TestMainKilledOutright(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, "job-done-file.yaml")
	m.Set(0, "spec", "backoffLimit")
	m.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	m.Args("export", "sleep", "3600")
	n.apply(m)
	killed := sigkillExport(t, n, m, 3*time.Minute, kit.Tandem("export", "cmd-started"),
		"the export's tandem did not start its CMD within a minute")

	end, at, err := n.waitJob(m.Name(), lifelineBound)
	if err != nil {
		proxy, _ := n.onlyPod(m.Name()).container("cloud-sql-proxy")
		t.Fatalf("the Job is still active %s after its main was SIGKILLed (proxy running: %v): "+
			"the sidecar did not count the main as lost (docs/files.md, the lifeline)", lifelineBound, proxy.running())
	}
	pj := playedJob{n: n, pod: n.onlyPod(m.Name())}
	if end != "Failed" {
		t.Errorf("job ended %s; want Failed (the export was killed)", end)
	}
	pj.exitCodes(map[string]int{"export": 137, "cloud-sql-proxy": 0})
	logs := n.podLogs(pj.pod)
	if done := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "done-seen")); done.Field("source") != "lost" {
		t.Errorf("the proxy saw the end through %q; want lost", done.Field("source"))
	}
	t.Logf("main SIGKILLed from the node: the Job ended %s %s later, the sidecar exited 0", end, at.Sub(killed).Round(time.Millisecond))
}

// sigkillExport waits for the Job's pod with both containers running and
// for started in the export's logs (following them for bound), then
// SIGKILLs the export's PID 1 (its tandem) from the node. It returns when
// the kill was sent; notStarted is the failure if started does not come
// within a minute.
func sigkillExport(t *testing.T, n *namespace, m *kit.Manifest, bound time.Duration, started kit.Event, notStarted string) time.Time {
	t.Helper()
	p := n.waitPod("job-name="+m.Name(), jobBound, func(p pod) bool {
		export, _ := p.container("export")
		proxy, _ := p.container("cloud-sql-proxy")
		return export.running() && proxy.running()
	})
	ctx, cancel := contextFor(bound)
	t.Cleanup(cancel)
	if !n.follow(ctx, p.Metadata.Name, "export").await(started, time.Minute) {
		t.Fatal(notStarted)
	}
	export, _ := p.container("export")
	pid := containerPID(t, export.ContainerID)
	if err := unix.Kill(pid, unix.SIGKILL); err != nil {
		t.Fatalf("kill -KILL %d (the export's PID 1): %v", pid, err)
	}
	return time.Now()
}

// containerPID is the host pid of a container's PID 1, from the cluster's
// containerd (ctr tasks ls: TASK PID STATUS).
func containerPID(t *testing.T, containerID string) int {
	t.Helper()
	id := strings.TrimPrefix(containerID, "containerd://")
	sock := os.Getenv("TANDEM_K8S_CONTAINERD")
	if sock == "" {
		sock = "/var/lib/tandem-k8s/containerd/containerd.sock"
	}
	out, err := exec.Command("ctr", "--address", sock, "--namespace", "k8s.io", "tasks", "ls").Output()
	if err != nil {
		t.Fatalf("ctr tasks ls: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == id {
			pid, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("ctr tasks ls: %q: %v", line, err)
			}
			return pid
		}
	}
	t.Fatalf("no task %s in ctr tasks ls:\n%s", id, out)
	return 0
}
