//go:build k8s

package k8s

import (
	"encoding/json"
	"slices"
	"testing"
)

// A server-side dry run is an admission like any other: `kubectl create
// --dry-run=server` of a pod that names its sidecar prints it injected,
// creates nothing, and the webhook counts it. Not parallel: it reads the
// shared webhook's counters.
func TestWebhookDryRun(t *testing.T) {
	n := admittingNamespace(t)
	podJSON, err := json.Marshal(idlePod("dry", sidecarNamed()))
	if err != nil {
		t.Fatal(err)
	}

	before := scrapeWebhook(t)
	out := n.run(podJSON, "create", "--dry-run=server", "-o", "json", "-f", "-")
	// reinvocationPolicy: IfNeeded: the API server's own admission runs
	// again after tandem's patch and changes the pod, so it calls tandem
	// again, which finds tandem.sh/injected.
	changed := assertCounted(t, before, map[string]float64{
		admissions("injected", "classic"):         1,
		admissions("skipped", "already-injected"): 1,
		admissionsTimed:                           2,
		lookupsRead:                               1,
		lookupsTimed:                              1,
	})

	p, err := decodeJSON[pod](out)
	if err != nil {
		t.Fatalf("the dry run printed no pod: %v\n%s", err, out)
	}
	if _, ok := p.Metadata.Annotations["tandem.sh/injected"]; !ok {
		t.Errorf("the dry run's pod is not annotated tandem.sh/injected:\n%s", out)
	}
	if !slices.ContainsFunc(p.Spec.InitContainers, func(c containerSpec) bool { return c.Name == "tandem-install" }) {
		t.Errorf("the dry run's pod has no init container tandem-install:\n%s", out)
	}
	for name, wrapper := range map[string]string{"work": "main", "proxy": "sidecar"} {
		c, _ := p.spec(name)
		if len(c.Command) < 2 || c.Command[0] != "/run/tandem/tandem" || c.Command[1] != wrapper {
			t.Errorf("the dry run's %s runs %q; want /run/tandem/tandem %s …", name, c.Command, wrapper)
		}
	}
	if pods := n.run(nil, "get", "pods", "-o", "name"); pods != "" {
		t.Errorf("the dry run created pods: %s", pods)
	}
	t.Logf("kubectl create --dry-run=server: injected, nothing created; the webhook's metrics changed by %v", changed)
}
