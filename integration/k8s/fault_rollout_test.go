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

// The webhook rolled during a burst: `kubectl rollout restart` replaces
// both replicas (maxUnavailable 0, maxSurge 1, each old one serving its
// --shutdown-delay after the stop signal) while pods are created as fast
// as the API server takes them.

// burstLeast is the fewest creates a burst makes, however fast the
// rollout.
const burstLeast = 100

// rolled is one burst across one rollout, its times since the burst began.
type rolled struct {
	attempts                       []attempt
	rolloutStart, rolledAt, oldEnd time.Duration
	old, replacements              []string
}

// TestFaultWebhookRolloutFail: under failurePolicy Fail every pod that
// was created is injected; the rest were refused, naming the webhook.
func TestFaultWebhookRolloutFail(t *testing.T) {
	webhookInstalled(t)
	waitWebhookRollout(t)
	n := newNamespace(t)
	n.enableInjection()
	r := burstDuringRollout(t, n, "fail")
	c := count(r.attempts)
	c.failOthers(t)
	if c.uninjected > 0 {
		t.Errorf("under failurePolicy Fail, %d pods were created without tandem: %v", c.uninjected, c.uninjectedPods)
	}
	n.assertStored(c)
	t.Logf("fault figures: webhook rolled during a burst (Fail): %d pods attempted, %d created, %d injected, %d refused, %d uninjected, 0 lost",
		c.attempted, c.created, c.injected, c.refused, c.uninjected)
}

// burstDuringRollout runs a burst in n from before `kubectl rollout
// restart` until both old replicas are gone (not only unready: each
// serves on for its shutdown delay) and at least burstLeast were sent.
func burstDuringRollout(t *testing.T, n *namespace, prefix string) rolled {
	t.Helper()
	return burstDuring(t, n, prefix, func() { webhookCtl(t, "rollout", "restart", "deployment/tandem-webhook") })
}

// burstDuring runs a burst in n across roll, which starts a rollout of the
// webhook, until both old replicas are gone and at least burstLeast were
// sent.
func burstDuring(t *testing.T, n *namespace, prefix string, roll func()) rolled {
	t.Helper()
	r := rolled{old: webhookPods(t)}
	b := &burst{client: adminClient(t), ns: n.name, prefix: prefix}
	finish := startBurst(t, b, burstLeast)
	since := func() time.Duration { return time.Since(b.start) }
	r.rolloutStart = since()
	roll()
	waitWebhookRollout(t)
	r.rolledAt = since()
	webhookCtl(t, append([]string{"wait", "--for=delete", "--timeout=2m"}, prefixed("pod/", r.old)...)...)
	r.oldEnd = since()
	r.attempts = finish()
	r.replacements = replacedBy(t, r.old)
	c := count(r.attempts)
	t.Logf("timeline since the burst's start: rollout started at %s, rolled out at %s, old replicas %v gone at %s; burst ended at %s; %s; refusals %s",
		r.rolloutStart.Round(time.Millisecond), r.rolledAt.Round(time.Millisecond), r.old, r.oldEnd.Round(time.Millisecond),
		c.span.Round(time.Millisecond), c, c.refusedSpan())
	return r
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, name := range names {
		out[i] = prefix + name
	}
	return out
}

// replacedBy asserts the rollout replaced old: the ready replicas are all
// of the Deployment's current ReplicaSet, as many as it wants, none of
// old. It returns them.
func replacedBy(t *testing.T, old []string) []string {
	t.Helper()
	var d struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Replicas int `json:"replicas"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(webhookCtl(t, "get", "deployment", "tandem-webhook", "-o", "json")), &d); err != nil {
		t.Fatal(err)
	}
	revision := d.Metadata.Annotations["deployment.kubernetes.io/revision"]
	hash := webhookCtl(t, "get", "replicasets", "-l", "app.kubernetes.io/name=tandem-webhook", "-o",
		`jsonpath={range .items[?(@.metadata.annotations.deployment\.kubernetes\.io/revision=="`+revision+`")]}{.metadata.labels.pod-template-hash}{end}`)
	out := webhookCtl(t, "get", "pods", "-l", "app.kubernetes.io/name=tandem-webhook", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.metadata.labels.pod-template-hash} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
	var ready []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != hash || f[2] != "True" || slices.Contains(old, f[0]) {
			t.Errorf("webhook pod after the rollout: %q; want each of ReplicaSet revision %s (hash %q), ready, none of %v", line, revision, hash, old)
			continue
		}
		ready = append(ready, f[0])
	}
	if len(ready) != d.Spec.Replicas {
		t.Errorf("after the rollout %d ready replicas of the new ReplicaSet %v; want %d", len(ready), ready, d.Spec.Replicas)
	}
	return ready
}

// refusedSpan says when the refusals came, since the burst's start.
func (c tally) refusedSpan() string {
	if c.refused == 0 {
		return "none"
	}
	return fmt.Sprintf("from %s to %s, the first: %v", c.firstRefused.Round(time.Millisecond), c.lastRefused.Round(time.Millisecond), c.refusals[0])
}

// assertStored reads the pods back: exactly those created are stored, and
// each is injected as its create's answer said.
func (n *namespace) assertStored(c tally) {
	n.t.Helper()
	stored := n.injectedPods()
	if len(stored) != c.created {
		n.t.Errorf("%d pods stored; want the %d created", len(stored), c.created)
	}
	for _, name := range c.injectedPods {
		if !stored[name] {
			n.t.Errorf("pod %s: its create's answer was injected, the stored pod is not (or is missing)", name)
		}
	}
	for _, name := range c.uninjectedPods {
		if injected, ok := stored[name]; !ok || injected {
			n.t.Errorf("pod %s: created uninjected, stored %v, injected %v", name, ok, injected)
		}
	}
}
