//go:build k8s

package k8s

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// policyLabel is the namespace label each policy test selects with a value
// of its own, so that tests (and the webhook's tandem.sh/inject=enabled)
// never share a namespace.
const policyLabel = "tandem.sh/policy-test"

// installPolicy applies `tandemctl policy flags...` (named name, selecting
// the namespaces labelled policyLabel=name) and waits until the API server
// injects with it; the policies go with the test.
func installPolicy(t *testing.T, n *namespace, name string, flags ...string) {
	t.Helper()
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	args := append([]string{"policy", "--image", tandemImage, "--name", name, "--namespace-selector", policyLabel + "=" + name}, flags...)
	manifest, stderr, err := kit.Tool{Bin: tandemctlBin()}.Run(ctx, nil, args...)
	if err != nil {
		t.Fatalf("tandemctl %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	t.Cleanup(func() {
		ctx, cancel := contextFor(kubectlTimeout)
		defer cancel()
		_, _ = kubectl(ctx, []byte(manifest), "delete", "--ignore-not-found", "-f", "-")
	})
	if _, err := kubectl(ctx, []byte(manifest), "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	n.run(nil, "label", "namespace", n.name, policyLabel+"="+name)
	// The API server picks a new policy and binding up from its informers:
	// a pod with a preset's sidecar comes back injected once it has.
	probe := readCorpus(t, "preset-command.yaml")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if out, err := n.try(probe, "create", "--dry-run=server", "-o", "json", "-f", "-"); err == nil && strings.Contains(out, `"tandem.sh/injected"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("policy %s: a pod created in namespace %s is still not injected after 30s", name, n.name)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readCorpus reads a pod of the policy's corpus (kube/policy/testdata/pods).
func readCorpus(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "kube", "policy", "testdata", "pods", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// expectedOutcome is what the corpus pod's first line says the policy does
// with it in mode: injects, skips or leaves.
func expectedOutcome(t *testing.T, data []byte, mode string) string {
	t.Helper()
	first, _, _ := strings.Cut(string(data), "\n")
	for _, f := range strings.Fields(strings.TrimPrefix(first, "# policy:")) {
		if m, outcome, ok := strings.Cut(f, "="); ok && m == mode {
			return outcome
		}
	}
	t.Fatalf("first line %q: expected # policy: classic=OUTCOME native=OUTCOME", first)
	return ""
}

// normalised is a pod as the API server returns it, less what differs
// between any two creations of the same pod (its identity, times,
// status) and the ServiceAccount admission's token volume, whose name is
// random and which it adds before a policy runs and after a webhook or a
// manifest's own volumes.
func normalised(t *testing.T, podJSON string) map[string]any {
	t.Helper()
	var pod map[string]any
	if err := json.Unmarshal([]byte(podJSON), &pod); err != nil {
		t.Fatalf("%v: %s", err, podJSON)
	}
	delete(pod, "status")
	meta := pod["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "uid", "namespace", "resourceVersion", "generation", "managedFields"} {
		delete(meta, k)
	}
	spec := pod["spec"].(map[string]any)
	spec["volumes"] = withoutToken(spec["volumes"])
	for _, list := range []string{"containers", "initContainers"} {
		ctrs, _ := spec[list].([]any)
		for _, c := range ctrs {
			c.(map[string]any)["volumeMounts"] = withoutToken(c.(map[string]any)["volumeMounts"])
		}
	}
	return pod
}

func withoutToken(list any) []any {
	var kept []any
	items, _ := list.([]any)
	for _, item := range items {
		if name, _ := item.(map[string]any)["name"].(string); !strings.HasPrefix(name, "kube-api-access-") {
			kept = append(kept, item)
		}
	}
	return kept
}

// fieldDiffs lists, field by field, where b differs from a.
func fieldDiffs(path string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var diffs []string
		for _, k := range sorted {
			diffs = append(diffs, fieldDiffs(path+"."+k, am[k], bm[k])...)
		}
		return diffs
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		var diffs []string
		for i := range al {
			diffs = append(diffs, fieldDiffs(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i])...)
		}
		return diffs
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	return []string{fmt.Sprintf("%s: inject %s, policy %s", path, aj, bj)}
}
