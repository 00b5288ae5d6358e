//go:build k8s

package k8s

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-sh/tandem/integration/kit"
)

// presetImage is the test image under a name the fluent-bit preset knows.
const presetImage = "localhost/tandem-k8s/fluent/fluent-bit:5.1.1"

// policyJob is a Job as written without tandem and without annotation: a
// main and a log shipper that never stops on its own, which the shipper's
// image names a sidecar.
const policyJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: policy-export
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: export
          image: ` + testImage + `
          imagePullPolicy: Never
          command: [sh, -c, "echo exported"]
        - name: logs
          image: ` + presetImage + `
          imagePullPolicy: Never
          command: [/usr/local/bin/standin, serve, --name, logs, --tcp, "127.0.0.1:2020"]
`

// With the policy alone (no webhook selects the namespace), a Job with a
// preset's sidecar and no annotation completes, in each mode: the API
// server injected it.
func TestPolicyJobCompletes(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"classic", "native"} {
		t.Run(mode, func(t *testing.T) {
			requirePolicy(t)
			t.Parallel()
			n := newNamespace(t)
			installPolicy(t, n, "job-"+mode, "--mode", mode)
			assertNoWebhookSelects(t, n)
			start := n.applyRaw([]byte(policyJob))
			took := n.mustComplete("policy-export", start, nativeBound)
			p := n.onlyPod("policy-export")
			if p.Metadata.Annotations["tandem.sh/injected"] == "" {
				t.Fatalf("pod %s: no tandem.sh/injected; annotations %v", p.Metadata.Name, p.Metadata.Annotations)
			}
			logs := n.podLogs(p)
			kit.AssertOrder(t, logs, kit.Tandem("export", "cmd-exited"), kit.Tandem("logs", "done-seen"), kit.Tandem("logs", "exiting"))
			if logsStatus, ok := p.container("logs"); !ok {
				t.Errorf("no status of the logs sidecar")
			} else if code, ended := logsStatus.exitCode(); !ended || code != 0 {
				t.Errorf("logs: ended %v with %d; want a requested stop, 0", ended, code)
			}
			t.Logf("%s mode: apply → Complete in %s (Kubernetes %s)", mode, took.Round(100*time.Millisecond), serverVersion)
		})
	}
}

// assertNoWebhookSelects fails t when a mutating webhook of the cluster
// selects n's namespace: the Job must owe its injection to the policy.
func assertNoWebhookSelects(t *testing.T, n *namespace) {
	t.Helper()
	var ns struct {
		Metadata struct{ Labels map[string]string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(n.run(nil, "get", "namespace", n.name, "-o", "json")), &ns); err != nil {
		t.Fatal(err)
	}
	var configs struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Webhooks []struct {
				Name              string                `json:"name"`
				NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector"`
			} `json:"webhooks"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(n.run(nil, "get", "mutatingwebhookconfigurations", "-o", "json")), &configs); err != nil {
		t.Fatal(err)
	}
	for _, c := range configs.Items {
		for _, w := range c.Webhooks {
			sel, err := metav1.LabelSelectorAsSelector(w.NamespaceSelector)
			if err == nil && w.NamespaceSelector != nil && !sel.Matches(labels.Set(ns.Metadata.Labels)) {
				continue
			}
			t.Fatalf("webhook %s of %s selects namespace %s (labels %v): the test needs the policy alone", w.Name, c.Metadata.Name, n.name, ns.Metadata.Labels)
		}
	}
}
