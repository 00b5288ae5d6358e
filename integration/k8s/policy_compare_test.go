//go:build k8s

package k8s

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The policy and `tandemctl inject` (the webhook's own rewriting) give the
// same pod for the same input: each pod of the policy's corpus is created
// with a server-side dry run in a namespace the policy selects, its
// injected copy from inject (same mode and install, --resolve none) in
// one it does not, and the two compared field by field. A pod the corpus
// says the policy cannot inject must be refused, saying why; one without
// sidecars left as it is.
func TestPolicyMatchesInject(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(repoRoot, "kube", "policy", "testdata", "pods", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the corpus: %v (%d files)", err, len(files))
	}
	for _, mode := range []string{"classic", "native"} {
		for _, install := range []string{"init-copy", "image-volume"} {
			t.Run(mode+"-"+install, func(t *testing.T) {
				requirePolicy(t)
				t.Parallel()
				withPolicy, plain := newNamespace(t), newNamespace(t)
				installPolicy(t, withPolicy, "cmp-"+mode+"-"+install, "--mode", mode, "--install", install)
				for _, f := range files {
					t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
						data, err := os.ReadFile(f)
						if err != nil {
							t.Fatal(err)
						}
						comparePolicy(t, withPolicy, plain, data, mode, install)
					})
				}
			})
		}
	}
}

// comparePolicy checks one pod of the corpus as its first line expects.
func comparePolicy(t *testing.T, withPolicy, plain *namespace, data []byte, mode, install string) {
	byPolicy, err := withPolicy.try(data, "create", "--dry-run=server", "-o", "json", "-f", "-")
	switch want := expectedOutcome(t, data, mode); want {
	case "skips":
		if err == nil || !strings.Contains(err.Error(), "tandem's admission policy cannot inject this pod: ") {
			t.Fatalf("created %v; want it refused by the policy, saying why\n%s", err, byPolicy)
		}
		t.Logf("refused: %v", err)
		return
	case "leaves":
		if err != nil || strings.Contains(byPolicy, `"tandem.sh/`) {
			t.Fatalf("err %v; want the pod created as it is:\n%s", err, byPolicy)
		}
		return
	}
	if err != nil || !strings.Contains(byPolicy, `"tandem.sh/injected"`) {
		t.Fatalf("err %v; want the pod injected:\n%s", err, byPolicy)
	}
	injected, report := injectManifest(t, data, "--mode", mode, "--install", install)
	byInject := plain.run(injected, "create", "--dry-run=server", "-o", "json", "-f", "-")
	for _, d := range fieldDiffs("", normalised(t, byInject), normalised(t, byPolicy)) {
		t.Error(d)
	}
	if t.Failed() {
		t.Logf("inject's report: %s", report)
	}
}

// requirePolicy skips t where the API server has no MutatingAdmissionPolicy
// in admissionregistration.k8s.io/v1 (before 1.36), naming the release.
func requirePolicy(t *testing.T) {
	t.Helper()
	requireCluster(t)
	if serverMinor < policySince {
		t.Skipf("Kubernetes %s serves no admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (GA in 1.%d)", serverVersion, policySince)
	}
}

// policySince is the first minor release that serves the policy in v1.
const policySince = 36
