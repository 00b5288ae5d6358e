//go:build k8s

package k8s

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// failurePolicy: Ignore, the documented trade (docs/webhook.md): no pod is
// refused while the webhook does not answer, and those admitted then run
// without tandem, which `tandemctl check` names.

// checkUninjected is the check whose findings name the pods of selected
// namespaces admitted without tandem.
const checkUninjected = "uninjected-pod"

// controlPods are created under Ignore with no replica to answer.
const controlPods = 5

// TestFaultWebhookRolloutIgnore: the same burst and rollout under Ignore;
// the pods created uninjected, if any, are counted and check names each
// of them and none of the injected. The control, with the webhook scaled
// to zero, proves check's side whatever the rollout left.
func TestFaultWebhookRolloutIgnore(t *testing.T) {
	webhookInstalled(t)
	waitWebhookRollout(t)
	setFailurePolicy(t, "Ignore")
	n := newNamespace(t)
	n.enableInjection()
	r := burstDuringRollout(t, n, "ignore")
	c := count(r.attempts)
	c.failOthers(t)
	if c.refused > 0 {
		t.Errorf("under failurePolicy Ignore, %d creates were refused; the first: %v", c.refused, c.refusals[0])
	}
	n.assertStored(c)

	scaleWebhookToZero(t)
	control := createUninjected(t, n, controlPods)
	uninjected := append(slices.Clone(c.uninjectedPods), control...)
	named := n.uninjectedFindings()
	slices.Sort(uninjected)
	if !slices.Equal(named, uninjected) {
		t.Errorf("tandemctl check named as uninjected %v; want exactly the pods created without tandem %v", named, uninjected)
	}
	for _, name := range c.injectedPods {
		if slices.Contains(named, name) {
			t.Errorf("tandemctl check named injected pod %s as uninjected", name)
		}
	}
	t.Logf("fault figures: webhook rolled during a burst (Ignore): %d pods attempted, %d created, %d injected, %d refused, %d uninjected; control, scaled to zero: %d created, all uninjected; tandemctl check named %d of the %d uninjected, none of the injected",
		c.attempted, c.created, c.injected, c.refused, c.uninjected, len(control), len(named), len(uninjected))
}

// setFailurePolicy sets the failurePolicy of tandem's webhook, and puts
// the one it had back when the test ends.
func setFailurePolicy(t *testing.T, policy string) {
	t.Helper()
	was := strings.TrimSpace(webhookCtl(t, "get", "mutatingwebhookconfiguration", "tandem", "-o", "jsonpath={.webhooks[0].failurePolicy}"))
	set := func(p string) {
		patch, _ := json.Marshal([]map[string]string{{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": p}})
		webhookCtl(t, "patch", "mutatingwebhookconfiguration", "tandem", "--type=json", "-p", string(patch))
		if got := webhookCtl(t, "get", "mutatingwebhookconfiguration", "tandem", "-o", "jsonpath={.webhooks[0].failurePolicy}"); got != p {
			t.Fatalf("failurePolicy is %q after setting %q", got, p)
		}
	}
	set(policy)
	t.Cleanup(func() { set(was) })
}

// createUninjected creates count pods while no replica answers: each is
// admitted (Ignore) without tandem. It returns their names.
func createUninjected(t *testing.T, n *namespace, count int) []string {
	t.Helper()
	b := &burst{client: adminClient(t), ns: n.name, prefix: "unanswered", start: time.Now()}
	var names []string
	for i := range count {
		a := b.create(t.Context(), fmt.Sprintf("%s-%d", b.prefix, i))
		if a.err != nil || a.injected {
			t.Fatalf("pod %s created with no replica under Ignore: error %v, injected %v; want admitted without tandem", a.pod, a.err, a.injected)
		}
		names = append(names, a.pod)
	}
	return names
}

// uninjectedFindings runs `tandemctl check` on n and returns the pods its
// uninjected findings name, sorted.
func (n *namespace) uninjectedFindings() []string {
	n.t.Helper()
	run := runCheck(n.t, "", "-n", n.name, "-o", "json")
	var named []string
	for _, f := range only(run.findings(n.t), checkUninjected) {
		if f.Severity != "error" || f.Namespace != n.name {
			n.t.Errorf("finding %+v: want an error in namespace %s", f, n.name)
		}
		named = append(named, strings.TrimPrefix(f.Name, "pod/"))
	}
	n.t.Logf("tandemctl check -n %s: exit %d, %d %s findings, in %s", n.name, run.code, len(named), checkUninjected, run.took.Round(time.Millisecond))
	slices.Sort(named)
	return named
}
