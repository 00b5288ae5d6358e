//go:build k8s

package k8s

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// teardownJob is a Job with a bare native sidecar, as users write it on
// 1.29+: its proxy exits 143 on SIGTERM (a trap, as Envoy and most proxies
// do), its main exits first on its first run and second on its second (a
// mark in a hostPath directory outlives the first pod). backoffLimit 1
// and FailJob on exit codes NotIn [0, 1] with no containerName: a 1 is
// meant to be retried.
func teardownJob(t *testing.T, name, markDir string, first, second int) *kit.Manifest {
	t.Helper()
	main := ctr("main", "sh", "-c", fmt.Sprintf(`if [ -e /mark/tried ]; then echo "main: second run"; exit %d; fi
touch /mark/tried; echo "main: first run"; exit %d`, second, first))
	main["volumeMounts"] = []any{map[string]any{"name": "mark", "mountPath": "/mark"}}
	proxy := nativeSidecar("proxy", "sh", "-c", `trap "echo proxy: SIGTERM; exit 143" TERM; while true; do sleep 1; done`)
	m := ownJob(t, name, map[string]any{
		"terminationGracePeriodSeconds": 10,
		"initContainers":                []any{proxy},
		"containers":                    []any{main},
		"volumes": []any{map[string]any{"name": "mark",
			"hostPath": map[string]any{"path": markDir, "type": "DirectoryOrCreate"}}},
	})
	m.Set(1, "spec", "backoffLimit")
	m.Set(map[string]any{"rules": []any{map[string]any{"action": "FailJob",
		"onExitCodes": map[string]any{"operator": "NotIn", "values": []int{0, 1}}}}}, "spec", "podFailurePolicy")
	return m
}

// Native mode keeps tandem's teardown promise on the kubelet. The control,
// the bare native sidecar: the kubelet's SIGTERM after the main's 1 gives
// the proxy 143, which the rule without containerName matches, and the
// Job fails at its first pod (reported, not asserted: the kubelet's). The same Job through `tandemctl inject
// --mode native` (the proxy a sidecar by its own declaration, no
// annotation): every sidecar stops with 0, the 1 is retried, and the
// second pod completes. And a main that exits 3 fails the Job by its 3
// alone, the sidecars' codes still 0.
func TestNativeTeardownCodes(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	n := newNamespace(t)
	marks := t.TempDir()
	bare := teardownJob(t, "bare", filepath.Join(marks, "bare"), 1, 0)
	retried := injected(t, teardownJob(t, "retried", filepath.Join(marks, "retried"), 1, 0), "native")
	three := injected(t, teardownJob(t, "three", filepath.Join(marks, "three"), 3, 0), "native")
	start := n.apply(bare)
	n.apply(retried)
	n.apply(three)

	reportControlEnd(t, n, "bare", start)
	took := n.mustComplete("retried", start, podFailureBound)
	pods := n.jobPods("retried")
	if len(pods) != 2 {
		t.Fatalf("job retried made %d pods; want 2 (the first failed with 1, retried)", len(pods))
	}
	assertCodes(t, pods[0], map[string]int{"main": 1, "proxy": 0, "tandem-install": 0})
	assertCodes(t, pods[1], map[string]int{"main": 0, "proxy": 0, "tandem-install": 0})
	assertFailedByPolicy(t, n, "three", start, map[string]int{"main": 3, "proxy": 0})
	// Whether the kubelet started the proxy again after tandem's stop and
	// before it saw the pod's mains done (a new tandem then finds the done
	// file and exits 0 at once): for the record, not asserted.
	first, _ := pods[0].container("proxy")
	second, _ := pods[1].container("proxy")
	t.Logf("injected native: the first pod failed with the main's 1 alone (proxy 0), the retry completed; apply → Complete in %s; proxy restarts %d, %d",
		took.Round(100*time.Millisecond), first.RestartCount, second.RestartCount)
}

// assertFailedByPolicy: Job name failed at its first pod, by its
// podFailurePolicy, its containers ended with codes.
func assertFailedByPolicy(t *testing.T, n *namespace, name string, start time.Time, codes map[string]int) {
	t.Helper()
	end, at, err := n.waitJob(name, podFailureBound)
	if err != nil || end != "Failed" {
		t.Fatalf("job %s: ended %q, %v; want Failed", name, end, err)
	}
	if reason := n.run(nil, "get", "job", name, "-o", `jsonpath={.status.conditions[?(@.type=="Failed")].reason}`); reason != "PodFailurePolicy" {
		t.Errorf("job %s failed for %q; want PodFailurePolicy", name, reason)
	}
	assertCodes(t, n.onlyPod(name), codes)
	t.Logf("job %s: Failed by its podFailurePolicy at its first pod, %v, %s after apply", name, codes, at.Sub(start).Round(100*time.Millisecond))
}

// reportControlEnd waits for the control Job name's end and reports how
// it ended: the kubelet's doing, not asserted.
func reportControlEnd(t *testing.T, n *namespace, name string, start time.Time) {
	t.Helper()
	end, at, err := n.waitJob(name, podFailureBound)
	if err != nil {
		t.Logf("control job %s: not ended %s after apply: %v", name, podFailureBound, err)
		return
	}
	reason := n.run(nil, "get", "job", name, "-o", `jsonpath={.status.conditions[?(@.type=="`+end+`")].reason}`)
	var codes []string
	p := n.onlyPod(name)
	for _, c := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		code, _ := c.exitCode()
		codes = append(codes, fmt.Sprintf("%s %d", c.Name, code))
	}
	t.Logf("control job %s: %s (%s) %s after apply; exit codes %v", name, end, reason, at.Sub(start).Round(100*time.Millisecond), codes)
}

// A native sidecar whose liveness probe fails once while the main runs is
// restarted by the kubelet with its program's code (tandem finds no done
// file: the stop is not a requested one), restartCount 1, and the Job
// completes.
func TestNativeLivenessRestartKeepsCode(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	n := newNamespace(t)
	const name = "native-liveness"
	proxy := nativeSidecar("proxy", "sh", "-c", `trap "exit 143" TERM; while true; do sleep 1; done`)
	proxy["livenessProbe"] = failsFirstLivenessProbe("/shared/probed")
	m := ownJob(t, name, withVolume(map[string]any{
		"initContainers": []any{proxy},
		"containers":     []any{ctr("main", "sh", "-c", `until [ -f /shared/finish ]; do sleep 0.2; done`)},
	}, "shared", "/shared"))
	out := injected(t, m, "native")
	n.apply(out)
	p := n.waitPod("job-name="+name, livenessBound, func(p pod) bool {
		proxy, _ := p.container("proxy")
		return proxy.RestartCount >= 1 && proxy.running()
	})
	restarted, _ := p.container("proxy")
	if last := restarted.LastState.Terminated; restarted.RestartCount != 1 || last == nil || last.ExitCode != 143 {
		t.Errorf("the proxy: %d restarts, first run ended %+v; want 1, with its program's 143 (not tandem's 0)", restarted.RestartCount, last)
	}
	n.run(nil, "exec", p.Metadata.Name, "-c", "main", "--", "touch", "/shared/finish")
	if end, _, err := n.waitJob(name, jobBound); err != nil || end != "Complete" {
		t.Fatalf("job %s ended %q (%v) after the proxy's restart; want Complete", name, end, err)
	}
	assertCodes(t, n.onlyPod(name), map[string]int{"main": 0, "proxy": 0})
}

// budgetBound is how long after the apply the Job may take to fail: the
// proxy gives up after its third restart (1 s, 2 s, 4 s of back-off); the
// rest is a loaded kubelet's start of the pod and the Job controller's
// round trips. Without the budget the export would run its ten minutes.
const budgetBound = 3 * time.Minute

// The restart budget in injected pods, both modes: a proxy that always
// crashes, needed by an export that would work for ten minutes. tandem
// restarts it three times (the default budget of a needed sidecar), gives
// up, the export sees it lost, and the Job fails within minutes, not the
// export's ten, the reason in the export's termination message.
func TestRestartBudgetFailsJob(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		n.serviceAccount("orders-export")
		name := "budget-" + mode
		// One pod: its failure ends the Job, no retry to wait for.
		m := needsJob(t, name, true, func(m *kit.Manifest) { m.Set(0, "spec", "backoffLimit") }, `sleep 600`, "--mode", mode)
		m.Args("cloud-sql-proxy", "sh", "-c", `echo "proxy: cannot start"; exit 1`)
		start := n.apply(m)
		end, at, err := n.waitJob(name, budgetBound)
		if err != nil || end != "Failed" {
			t.Fatalf("%s: job ended %q (%v) within %s; want Failed", mode, end, err, budgetBound)
		}
		export, _ := n.onlyPod(name).container("export")
		msg := ""
		if export.State.Terminated != nil {
			msg = export.State.Terminated.Message
		}
		if !strings.Contains(msg, "sidecar-lost") || !strings.Contains(msg, "cloud-sql-proxy") {
			t.Errorf("%s: the export's termination message %q; want sidecar-lost, naming cloud-sql-proxy", mode, msg)
		}
		t.Logf("%s: a proxy that always crashes: Job Failed %s after apply", mode, at.Sub(start).Round(100*time.Millisecond))
	})
}

// --mode auto picks native on a cluster whose API server and kubelet are
// at 1.29 or later, classic on an older one, and says why.
func TestModeAutoByRelease(t *testing.T) {
	t.Parallel()
	requireCluster(t)
	m := ownJob(t, "auto", map[string]any{"containers": []any{ctr("main", "true"), ctr("proxy", "sleep", "60")}})
	m.Set(map[string]string{"tandem.sh/sidecars": "proxy"}, "spec", "template", "metadata", "annotations")
	out, report := injectManifest(t, m.YAML(), "--mode", "auto")
	if serverMinor < nativeSidecarsSince {
		mustContain(t, "inject's report", report,
			"tandemctl: --mode auto: classic: the API server is "+serverVersion+", before v1.29 (native sidecars off by default)")
		if strings.Contains(string(out), "restartPolicy: Always") {
			t.Errorf("--mode auto wrote a native sidecar on %s:\n%s", serverVersion, out)
		}
		return
	}
	mustContain(t, "inject's report", report, "tandemctl: --mode auto: native: the API server (v1.", "are at v1.29 or later")
	if !strings.Contains(string(out), "restartPolicy: Always") {
		t.Errorf("--mode auto wrote no native sidecar:\n%s", out)
	}
}
