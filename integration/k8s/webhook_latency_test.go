//go:build k8s

package k8s

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// latencyPods: the admissions measured, after as many to warm up.
const latencyPods = 100

// testWebhookLatency (a subtest of TestWebhook) measures the admission round trip: pods created with
// dryRun (admitted, webhooks called, nothing stored or run) in a labelled
// namespace, against the same in an unlabelled one. It prints figures and
// asserts only that every pod was injected.
func testWebhookLatency(t *testing.T) {
	client := adminClient(t)
	labelled, plain := newNamespace(t), newNamespace(t)
	labelled.enableInjection()
	labelled.pullSecret()
	plain.pullSecret()
	with := measureCreates(t, client, labelled.name, true)
	without := measureCreates(t, client, plain.name, false)
	p := func(d []time.Duration, q float64) time.Duration {
		return d[int(q*float64(len(d)-1))].Round(10 * time.Microsecond)
	}
	t.Logf("pod create (dry run), %d each: with the webhook p50 %s p99 %s; unlabelled namespace p50 %s p99 %s; the webhook's share p50 %s",
		latencyPods, p(with, .5), p(with, .99), p(without, .5), p(without, .99), p(with, .5)-p(without, .5))
	if inside := webhookDurations(t, labelled.name); len(inside) > 0 {
		t.Logf("inside the webhook (its duration_ms, %d admissions): p50 %s p99 %s", len(inside), p(inside, .5), p(inside, .99))
	}
}

// webhookDurations reads the webhook's own log lines for namespace.
func webhookDurations(t *testing.T, namespace string) []time.Duration {
	t.Helper()
	out, err := kubectl(context.Background(), nil, "-n", webhookNamespace, "logs", "-l", "app.kubernetes.io/name=tandem-webhook", "--tail=-1")
	if err != nil {
		t.Logf("webhook logs: %v", err)
		return nil
	}
	var took []time.Duration
	for _, line := range strings.Split(out, "\n") {
		var l struct {
			Event, Namespace string
			DurationMS       float64 `json:"duration_ms"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Event == "admission" && l.Namespace == namespace {
			took = append(took, time.Duration(l.DurationMS*float64(time.Millisecond)))
		}
	}
	slices.Sort(took)
	return took
}

func measureCreates(t *testing.T, client kubernetes.Interface, ns string, wantInjected bool) []time.Duration {
	t.Helper()
	var took []time.Duration
	for i := range 2 * latencyPods {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "latency-", Annotations: map[string]string{"tandem.sh/sidecars": "proxy"}},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				ImagePullSecrets: []corev1.LocalObjectReference{{Name: "regcred"}},
				Containers: []corev1.Container{
					{Name: "work", Image: appImage},
					{Name: "proxy", Image: appImage, Command: []string{"sleep", "3600"}},
				}},
		}
		start := time.Now()
		got, err := client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		d := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if _, injected := got.Annotations["tandem.sh/injected"]; injected != wantInjected {
			t.Fatalf("pod in %s: injected %v; want %v", ns, injected, wantInjected)
		}
		if i >= latencyPods { // the first half warms up connections and caches
			took = append(took, d)
		}
	}
	slices.Sort(took)
	return took
}
