//go:build k8s

package k8s

import (
	"encoding/json"
	"time"
)

// heldPodSpec is a classic pod as teams write it, without tandem: the work
// exits 0 at once, its proxy sleeps on, so its Job never completes. (sleep
// is PID 1 and ignores SIGTERM: a short grace period ends it when the test
// deletes it.)
func heldPodSpec() map[string]any {
	return map[string]any{
		"restartPolicy":                 "Never",
		"terminationGracePeriodSeconds": 2,
		"containers": []any{
			ctr("work", "sh", "-c", "echo work done"),
			ctr("proxy", "sleep", "3600"),
		},
	}
}

// waitHeld waits until the pod of Job name is held: its work ended with 0,
// its proxy runs on.
func (n *namespace) waitHeld(name string) pod {
	n.t.Helper()
	return n.waitPod("job-name="+name, jobBound, func(p pod) bool {
		work, _ := p.container("work")
		proxy, _ := p.container("proxy")
		code, ended := work.exitCode()
		return ended && code == 0 && proxy.running()
	})
}

// heldFinding is the held-pod finding for pod p in a run of check -o
// json, if there is one.
func (n *namespace) heldFinding(r checkRun, p pod) (checkFinding, bool) {
	var findings []checkFinding
	if json.Unmarshal([]byte(r.stdout), &findings) != nil {
		return checkFinding{}, false
	}
	for _, f := range only(findings, "held-pod") {
		if f.Namespace == n.name && f.Name == p.Metadata.Name {
			return f, true
		}
	}
	return checkFinding{}, false
}

// awaitHeldFinding runs check -o json on n until it finds p held, and
// returns the run and the finding. A pod is held once its main ended more
// than --stuck-after ago: a second here.
func (n *namespace) awaitHeldFinding(p pod) (checkRun, checkFinding) {
	n.t.Helper()
	run := checkUntil(n.t, time.Minute, func(r checkRun) bool {
		_, ok := n.heldFinding(r, p)
		return ok
	}, n.checkArgs("-o", "json")...)
	f, _ := n.heldFinding(run, p)
	return run, f
}

// checkArgs are check's flags for n's pods: held after a second.
func (n *namespace) checkArgs(more ...string) []string {
	return append([]string{"-n", n.name, "--stuck-after", "1s"}, more...)
}
