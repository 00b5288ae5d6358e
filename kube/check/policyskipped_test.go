package check

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/policy"
)

func TestPolicySkipped(t *testing.T) {
	yes := true
	marked := func(restart corev1.RestartPolicy, phase corev1.PodPhase, extra map[string]string) corev1.Pod {
		ann := map[string]string{policy.PolicyKey: policy.SkippedPrefix + "container proxy has no command"}
		for k, v := range extra {
			ann[k] = v
		}
		return corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Annotations: ann,
				OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "export", Controller: &yes}}},
			Spec: corev1.PodSpec{RestartPolicy: restart}, Status: corev1.PodStatus{Phase: phase},
		}
	}
	tests := []struct {
		name     string
		pod      corev1.Pod
		severity Severity // "" for no finding
	}{
		{"a Job's pod left alone, running", marked(corev1.RestartPolicyNever, corev1.PodRunning, nil), Error},
		{"a pod that restarts its containers", marked(corev1.RestartPolicyAlways, corev1.PodRunning, nil), Warning},
		{"finished", marked(corev1.RestartPolicyNever, corev1.PodSucceeded, nil), ""},
		{"injected since (by the webhook)", marked(corev1.RestartPolicyNever, corev1.PodRunning, map[string]string{"tandem.sh/injected": "v1.0.0"}), ""},
		{"not marked", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}, ""},
		{"another value", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Annotations: map[string]string{policy.PolicyKey: "note"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policySkipped([]corev1.Pod{tt.pod}, map[string]string{"ns/export": "nightly"})
			if tt.severity == "" {
				if len(got) != 0 {
					t.Fatalf("findings %+v; want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != tt.severity || got[0].Check != checkPolicySkipped {
				t.Fatalf("findings %+v; want one %s %s", got, tt.severity, checkPolicySkipped)
			}
			for _, want := range []string{"container proxy has no command", "kubectl delete pod -n ns p"} {
				if !strings.Contains(got[0].Message+got[0].Fix, want) {
					t.Errorf("finding %+v does not say %q", got[0], want)
				}
			}
			if tt.severity == Error && !strings.Contains(got[0].Message, "Job export of CronJob nightly cannot complete") {
				t.Errorf("message %q does not name the held Job and CronJob", got[0].Message)
			}
		})
	}
}
