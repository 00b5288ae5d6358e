//go:build k8s

package k8s

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// assertClusterHealthy: after a fault of the control plane, each part is
// back at work: the kubelet (its node Ready), the controller-manager (a
// new namespace's default ServiceAccount), the webhook (a pod stored
// injected) and the scheduler with the kubelet (a pod, which names no
// sidecar, run to its end).
func assertClusterHealthy(t *testing.T, client kubernetes.Interface) {
	t.Helper()
	start := time.Now()
	webhookCtl(t, "wait", "--for=condition=Ready", "node/tandem-k8s", "--timeout=1m")
	nodeReady := time.Since(start)
	n := newNamespace(t)
	n.enableInjection()
	accounts := time.Since(start)
	got, err := client.CoreV1().Pods(n.name).Create(t.Context(), burstPod("admitted"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a pod created after the fault: %v", err)
	}
	if _, injected := got.Annotations["tandem.sh/injected"]; !injected {
		t.Errorf("a pod created after the fault was not injected: %v", got.Annotations)
	}
	runs := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "runs"}, Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{{Name: "work", Image: testImage, ImagePullPolicy: corev1.PullNever, Command: []string{"true"}}},
	}}
	if _, err := client.CoreV1().Pods(n.name).Create(t.Context(), runs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a pod to run after the fault: %v", err)
	}
	n.waitFor("pod/runs", "{.status.phase}=Succeeded", time.Minute)
	t.Logf("cluster healthy again: node Ready at %s, a new namespace's ServiceAccount at %s, a pod injected, a pod run to Succeeded at %s",
		nodeReady.Round(time.Millisecond), accounts.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}
