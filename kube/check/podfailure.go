package check

import (
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/podfailure"
)

// podFailurePolicies finds, in jobs, the podFailurePolicy rules that a
// sidecar's exit at teardown would trip.
func podFailurePolicies(jobs []batchv1.Job) []Finding {
	var findings []Finding
	for i := range jobs {
		job := &jobs[i]
		if job.Spec.PodFailurePolicy == nil {
			continue
		}
		mains, sidecars := jobContainers(&job.Spec.Template)
		if len(sidecars) == 0 {
			continue
		}
		for _, trip := range podfailure.Tripped(failureRules(job.Spec.PodFailurePolicy)) {
			findings = append(findings, Finding{Check: checkPodFailurePolicy, Severity: Error, Namespace: job.Namespace,
				Name: job.Name, Message: "Job " + job.Name + ": " + trip.Message(sidecars), Fix: trip.Fix(mains)})
		}
	}
	return findings
}

// jobContainers sorts a Job's pod template: native sidecars (init
// containers with restartPolicy: Always) and the containers that
// tandem.sh/sidecars names are sidecars, the other containers mains.
func jobContainers(template *corev1.PodTemplateSpec) (mains, sidecars []string) {
	for _, c := range template.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars = append(sidecars, c.Name)
		}
	}
	named := map[string]bool{}
	for _, name := range strings.Split(template.Annotations[inject.SidecarsKey], ",") {
		named[strings.TrimSpace(name)] = true
	}
	for _, c := range template.Spec.Containers {
		if named[c.Name] {
			sidecars = append(sidecars, c.Name)
		} else {
			mains = append(mains, c.Name)
		}
	}
	return mains, sidecars
}

func failureRules(policy *batchv1.PodFailurePolicy) []podfailure.Rule {
	var rules []podfailure.Rule
	for i, r := range policy.Rules {
		if r.OnExitCodes == nil {
			continue
		}
		rule := podfailure.Rule{Index: i, Action: string(r.Action), Operator: string(r.OnExitCodes.Operator), Values: r.OnExitCodes.Values}
		if r.OnExitCodes.ContainerName != nil {
			rule.ContainerName = *r.OnExitCodes.ContainerName
		}
		rules = append(rules, rule)
	}
	return rules
}
