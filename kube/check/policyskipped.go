package check

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/policy"
)

// checkPolicySkipped: a pod that tandem's admission policy could not
// inject (created under `tandemctl policy --on-error allow`).
const checkPolicySkipped = "policy-skipped"

// policySkipped finds the pods not yet finished that tandem's admission
// policy left alone, as the tandem.sh/policy annotation it wrote on them
// says, with its reason. A pod whose mains end is held by its classic
// sidecars; one that restarts its containers only lacks tandem's order.
func policySkipped(pods []corev1.Pod, cronJobs map[string]string) []Finding {
	var findings []Finding
	for i := range pods {
		pod := &pods[i]
		reason, marked := strings.CutPrefix(pod.Annotations[policy.PolicyKey], policy.SkippedPrefix)
		if !marked || finished(pod) || pod.Annotations[inject.InjectedKey] != "" {
			continue
		}
		o := owner{job: controllerOf(pod.OwnerReferences, "Job")}
		o.cronJob = cronJobs[pod.Namespace+"/"+o.job]
		severity, harm := Error, "its sidecars run on after its mains end, so "+heldWhat(o)
		if pod.Spec.RestartPolicy == corev1.RestartPolicyAlways {
			severity, harm = Warning, "its containers run without tandem's start and stop order"
		}
		findings = append(findings, Finding{Check: checkPolicySkipped, Severity: severity, Namespace: pod.Namespace, Name: pod.Name,
			Message: "not injected: tandem's admission policy could not (" + reason + "): " + harm,
			Fix: fmt.Sprintf("change its manifest as the reason says (or inject it with tandemctl inject, or run the webhook), then create it again (kubectl delete pod -n %s %s; a Job makes a new one)",
				pod.Namespace, pod.Name)})
	}
	return findings
}
