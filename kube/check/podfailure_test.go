package check

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// policyJob is Job export in namespace jobs, main "export", with rule.
func policyJob(rule batchv1.PodFailurePolicyRule, template corev1.PodTemplateSpec) batchv1.Job {
	template.Spec.Containers = append(template.Spec.Containers, corev1.Container{Name: "export"})
	return batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: jobsNS, Name: "export"},
		Spec: batchv1.JobSpec{Template: template, PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
			{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
			rule,
		}}}}
}

// stopped is template with its db-proxy under `tandem sidecar --done-file`.
func stopped(template corev1.PodTemplateSpec, native bool) corev1.PodTemplateSpec {
	return stoppedFrom(template, native, "/run/tandem/tandem")
}

// stoppedFrom is stopped, tandem run from bin (/run/tandem-bin/tandem:
// the image-volume install).
func stoppedFrom(template corev1.PodTemplateSpec, native bool, bin string) corev1.PodTemplateSpec {
	t := *template.DeepCopy()
	ctrs := t.Spec.Containers
	if native {
		ctrs = t.Spec.InitContainers
	}
	ctrs[0].Command = []string{bin, "sidecar", "--name", "db-proxy", "--done-file", "/run/tandem/export.done", "--"}
	return t
}

// A rule on exit codes without containerName, in a Job with a sidecar, is
// tripped by the sidecar's 143 at teardown: check names the rule and the
// fix; a rule for the main alone, or a Job without sidecars, is fine.
func TestPodFailurePolicyTrippedBySidecar(t *testing.T) {
	notIn01 := func(container *string) batchv1.PodFailurePolicyRule {
		return batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionFailJob,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: container, Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{0, 1}}}
	}
	native := corev1.PodTemplateSpec{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "db-proxy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}}}
	classic := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"tandem.sh/sidecars": "db-proxy"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db-proxy"}}}}
	tripped := want{checkPodFailurePolicy, Error, "export", []string{
		"Job export: podFailurePolicy rule 2 (FailJob on exit codes NotIn [0, 1]) matches every container",
		`sidecar "db-proxy" can exit 143 at teardown`, "fix: add containerName: export to the rule's onExitCodes"}}
	for _, tt := range []struct {
		name string
		job  batchv1.Job
		want []want
	}{
		{"native sidecar", policyJob(notIn01(nil), native), []want{tripped}},
		{"classic sidecar named by the annotation", policyJob(notIn01(nil), classic), []want{tripped}},
		{"the rule names the main", policyJob(notIn01(ptr.To("export")), native), nil},
		{"no sidecar", policyJob(notIn01(nil), corev1.PodTemplateSpec{}), nil},
		// Injected: tandem stops them once the main is done, with 0.
		{"native sidecar stopped by tandem", policyJob(notIn01(nil), stopped(native, true)), nil},
		{"classic sidecar stopped by tandem", policyJob(notIn01(nil), stopped(classic, false)), nil},
		{"native sidecar stopped by tandem from an image volume", policyJob(notIn01(nil), stoppedFrom(native, true, "/run/tandem-bin/tandem")), nil},
		{"classic sidecar stopped by tandem from an image volume", policyJob(notIn01(nil), stoppedFrom(classic, false, "/run/tandem-bin/tandem")), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.cluster.jobs = []batchv1.Job{tt.job}
			expectFindings(t, f.run(t, Options{}).Findings, tt.want...)
		})
	}
}
