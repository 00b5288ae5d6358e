//go:build k8s

package k8s

import (
	"encoding/json"
	"testing"
)

// A Job made from a CronJob, held by its sidecar: check names the CronJob,
// and its fix injects the CronJob (whose Jobs are made from its template).
func TestCheckHeldCronJob(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	// Suspended, and due once a year: the test makes the Job itself.
	// JSON, not kit.Manifest: its pod spec is a Job's or a Pod's.
	cronJob, err := json.Marshal(map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "CronJob",
		"metadata":   map[string]any{"name": "nightly"},
		"spec": map[string]any{
			"schedule": "0 3 1 1 *",
			"suspend":  true,
			"jobTemplate": map[string]any{"spec": map[string]any{
				"backoffLimit": 0,
				"template":     map[string]any{"spec": heldPodSpec()},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	n.applyRaw(cronJob)
	n.run(nil, "create", "job", "nightly-by-hand", "--from=cronjob/nightly")
	p := n.waitHeld("nightly-by-hand")

	run, f := n.awaitHeldFinding(p)
	if run.code != 1 {
		t.Errorf("check: exit %d; want 1", run.code)
	}
	mustContain(t, "the finding's message", f.Message, "Job nightly-by-hand of CronJob nightly cannot complete")
	mustContain(t, "the finding's fix", f.Fix,
		"kubectl get cronjob nightly -n "+n.name+" -o yaml | tandemctl inject --sidecar proxy - | kubectl apply -f -")
}
