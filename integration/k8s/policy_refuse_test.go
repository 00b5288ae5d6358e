//go:build k8s

package k8s

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// unhandledJob's pod names a sidecar whose image no preset knows and that
// states no command: only a registry says what it runs, and a policy reads
// none. (No registry serves it: admitted, the pod waits for its image, and
// stays a pod check looks at.)
const unhandledJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: unhandled
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations:
        tandem.sh/sidecars: proxy
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: ` + testImage + `
          imagePullPolicy: Never
          command: [sh, -c, "echo done"]
        - name: proxy
          image: example.invalid/proxy:1
`

const unhandledReason = "container proxy has no command, and no preset knows what its image runs"

// What the API server does with a pod the policy cannot inject: with
// --on-error reject it refuses the pod, saying why, and a Job's controller
// records that as FailedCreate; with --on-error allow it creates the pod
// unchanged but for the tandem.sh/policy annotation, which
// `tandemctl check` reports.
func TestPolicyRefusesUnhandled(t *testing.T) {
	t.Parallel()
	t.Run("reject", func(t *testing.T) {
		requirePolicy(t)
		t.Parallel()
		n := newNamespace(t)
		installPolicy(t, n, "refuse-reject")
		_, err := n.try(readCorpus(t, "skip-no-command.yaml"), "create", "-f", "-")
		if err == nil || !strings.Contains(err.Error(), "tandem's admission policy cannot inject this pod: "+unhandledReason) {
			t.Fatalf("kubectl create: %v; want the pod refused with the policy's reason", err)
		}
		t.Logf("kubectl create: %v", err)
		n.applyRaw([]byte(unhandledJob))
		var seen string
		if err := watch(n, time.Minute, func(e event) bool {
			seen = e.Message
			return e.Reason == "FailedCreate" && strings.Contains(e.Message, unhandledReason)
		}, "events", "--field-selector", "involvedObject.name=unhandled"); err != nil {
			t.Fatalf("%v (last event: %q)", err, seen)
		}
		t.Logf("the Job's FailedCreate event: %s", seen)
	})
	t.Run("allow", func(t *testing.T) {
		requirePolicy(t)
		t.Parallel()
		n := newNamespace(t)
		installPolicy(t, n, "refuse-allow", "--on-error", "allow")
		n.applyRaw([]byte(unhandledJob))
		p := n.waitPod("job-name=unhandled", time.Minute, func(pod) bool { return true })
		if got := p.Metadata.Annotations["tandem.sh/policy"]; !strings.HasPrefix(got, "skipped: "+unhandledReason) || p.Metadata.Annotations["tandem.sh/injected"] != "" {
			t.Fatalf("pod annotations %v; want tandem.sh/policy: skipped: %s…, and no injection", p.Metadata.Annotations, unhandledReason)
		}
		run := runCheck(t, "", "-n", n.name, "-o", "json")
		var findings []struct{ Check, Severity, Name, Message string }
		if err := json.Unmarshal([]byte(run.stdout), &findings); err != nil {
			t.Fatalf("check -o json: %v\n%s", err, run.stdout)
		}
		found := false
		for _, f := range findings {
			found = found || f.Check == "policy-skipped" && f.Severity == "error" && f.Name == p.Metadata.Name && strings.Contains(f.Message, unhandledReason)
		}
		if !found || run.code != 1 {
			t.Fatalf("check exited %d with %+v; want exit 1 and a policy-skipped error for pod %s", run.code, findings, p.Metadata.Name)
		}
	})
}

// event is what the tests read of an Event.
type event struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// `tandemctl policy --kubeconfig` asks the API server before writing:
// accepted where it serves the policy in v1, refused by name elsewhere.
func TestPolicyServedByAPIServer(t *testing.T) {
	requireCluster(t)
	t.Parallel()
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	out, stderr, err := kit.Tool{Bin: tandemctlBin()}.Run(ctx, nil, "policy", "--image", tandemImage, "--kubeconfig", os.Getenv("KUBECONFIG"))
	if serverMinor >= policySince {
		if err != nil || !strings.Contains(out, "kind: MutatingAdmissionPolicy\n") {
			t.Fatalf("Kubernetes %s: %v\n%s; want the policy written", serverVersion, err, stderr)
		}
		return
	}
	if err == nil || out != "" || !strings.Contains(stderr, "does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy") {
		t.Fatalf("Kubernetes %s: err %v, stdout %q, stderr %q; want a refusal naming what is missing, nothing written", serverVersion, err, out, stderr)
	}
}
