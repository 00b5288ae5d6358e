//go:build k8s

package k8s

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// podFailureBound: the retry comes after the Job controller's 10 s
// back-off.
const podFailureBound = 3 * time.Minute

// failurePolicyJob is a Job with a bare native sidecar, as written before
// tandem: its main exits 1 on its first run and 0 on its second (a mark
// in a hostPath directory outlives the first pod), its proxy exits 143 on
// the kubelet's SIGTERM at teardown, as most proxies do. backoffLimit 2
// and FailJob on exit codes NotIn [0, 1]: a 1 is meant to be retried.
// containerName, when not "", is the rule's.
func failurePolicyJob(t *testing.T, name, containerName, markDir string) *kit.Manifest {
	t.Helper()
	main := ctr("main", "sh", "-c", `if [ -e /mark/tried ]; then echo "main: second run, exit 0"; exit 0; fi
touch /mark/tried; echo "main: first run, exit 1"; exit 1`)
	main["volumeMounts"] = []any{map[string]any{"name": "mark", "mountPath": "/mark"}}
	m := ownJob(t, name, map[string]any{
		"initContainers": []any{nativeSidecar("proxy", "sh", "-c", `trap "exit 143" TERM; while true; do sleep 1; done`)},
		"containers":     []any{main},
		"volumes": []any{map[string]any{"name": "mark",
			"hostPath": map[string]any{"path": markDir, "type": "DirectoryOrCreate"}}},
	})
	codes := map[string]any{"operator": "NotIn", "values": []int{0, 1}}
	if containerName != "" {
		codes["containerName"] = containerName
	}
	m.Set(2, "spec", "backoffLimit")
	m.Set(map[string]any{"rules": []any{map[string]any{"action": "FailJob", "onExitCodes": codes}}}, "spec", "podFailurePolicy")
	return m
}

// The Job controller matches onExitCodes against every terminated
// container, native sidecars included, unless the rule names one. Without
// containerName the bare native proxy's 143 at the teardown of the first
// pod trips FailJob: the Job fails at once (the control, reported), and
// `tandemctl check` names the rule and the fix. With containerName: main the 1 is
// retried, and the second pod completes; that Job is injected in native
// mode, so its proxy's stop ends with 0 (TestNativeTeardownCodes shows
// that this alone keeps the rule without containerName safe).
func TestPodFailurePolicyContainerName(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	n := newNamespace(t)
	marks := t.TempDir()
	trips := failurePolicyJob(t, "trips", "", filepath.Join(marks, "trips"))
	fixed := failurePolicyJob(t, "fixed", "main", filepath.Join(marks, "fixed"))

	fixedOut, report := injectManifest(t, fixed.YAML(), "--mode", "native")
	// Its rule names the main: no podFailurePolicy warning (others, such as
	// the stop signal --resolve none assumes, are not this test's).
	if strings.Contains(report, "matches every container") {
		t.Errorf("inject warned about the podFailurePolicy of the Job whose rule names its main: %s", report)
	}
	start := n.apply(trips)
	n.applyRaw(fixedOut)

	assertCheckFlagsTrips(t, n)
	reportControlEnd(t, n, "trips", start)
	took := n.mustComplete("fixed", start, podFailureBound)
	pods := n.jobPods("fixed")
	if len(pods) != 2 {
		t.Fatalf("job fixed made %d pods; want 2 (the first failed with 1, retried)", len(pods))
	}
	assertCodes(t, pods[0], map[string]int{"main": 1, "proxy": 0})
	assertCodes(t, pods[1], map[string]int{"main": 0})
	t.Logf("containerName: main: the first pod failed (main 1, proxy 0), the retry ran; apply → Complete in %s", took.Round(100*time.Millisecond))
}

// assertCheckFlagsTrips runs `tandemctl check` on the namespace: one
// finding, for the Job without containerName.
func assertCheckFlagsTrips(t *testing.T, n *namespace) {
	t.Helper()
	run := runCheck(t, "", "-n", n.name, "-o", "json")
	found := only(run.findings(t), "pod-failure-policy")
	if run.code != 1 || len(found) != 1 || found[0].Name != "trips" || found[0].Severity != "error" {
		t.Fatalf("check exited %d with pod-failure-policy findings %+v; want one error, for job trips", run.code, found)
	}
	mustContain(t, "check's finding", found[0].Message, "Job trips", "podFailurePolicy rule 1 (FailJob on exit codes NotIn [0, 1])",
		`sidecar "proxy" can exit 143 at teardown`, "the Job fails at once")
	if want := "add containerName: main to the rule's onExitCodes"; found[0].Fix != want {
		t.Errorf("check's fix: %q; want %q", found[0].Fix, want)
	}
}

// assertCodes asserts each container of p terminated with its code.
func assertCodes(t *testing.T, p pod, want map[string]int) {
	t.Helper()
	for c, code := range want {
		cs, _ := p.container(c)
		if got, ended := cs.exitCode(); !ended || got != code {
			t.Errorf("pod %s, container %s: ended %v with %d; want %d", p.Metadata.Name, c, ended, got, code)
		}
	}
}
