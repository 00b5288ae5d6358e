//go:build k8s

package k8s

import (
	"encoding/json"
	"fmt"
	"testing"
)

// The webhook's metrics count what it did: three pods injected and two
// skipped (one opted out, one naming no sidecar), created in a labelled
// namespace, move the admissions counter by exactly that, by outcome and
// reason (and a second pass over each injected one), and the duration
// histogram by eight; the proxy's image was read
// once for each pod injected (its STOPSIGNAL), never for one skipped. It
// reads the shared webhook's counters, so it is not parallel: no other
// test admits pods meanwhile.
func TestWebhookMetrics(t *testing.T) {
	n := admittingNamespace(t)
	var items []any
	for i := range 3 {
		items = append(items, idlePod(fmt.Sprintf("injected-%d", i), sidecarNamed()))
	}
	items = append(items,
		idlePod("opted-out", sidecarNamed("tandem.sh/inject", "disabled")),
		idlePod("no-sidecars", nil))
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}

	before := scrapeWebhook(t)
	n.run(list, "create", "-f", "-")
	// Each pod injected is admitted once more (reinvocationPolicy:
	// IfNeeded, the API server's own admission having changed it after
	// tandem's patch): that call finds tandem.sh/injected.
	changed := assertCounted(t, before, map[string]float64{
		admissions("injected", "classic"):         3,
		admissions("skipped", "already-injected"): 3,
		admissions("skipped", "opted-out"):        1,
		admissions("skipped", "no-sidecars"):      1,
		admissionsTimed:                           8,
		lookupsRead:                               3,
		lookupsTimed:                              3,
	})

	injected := n.injectedPods()
	for name, want := range map[string]bool{"injected-0": true, "injected-1": true, "injected-2": true, "opted-out": false, "no-sidecars": false} {
		if injected[name] != want {
			t.Errorf("pod %s injected %v; want %v (all: %v)", name, injected[name], want, injected)
		}
	}
	t.Logf("webhook metrics over %d replicas %v, after 3 injected and 2 skipped: %v", len(before.pods), before.pods, changed)
}
