package check

import (
	"path"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-sh/tandem/internal/cmdline"
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
// tandem.sh/sidecars names are sidecars, the other containers mains. A
// sidecar tandem stops once the mains are done (injected: `tandem sidecar
// --done-file`) ends that stop with 0 and trips no rule: it is left out.
func jobContainers(template *corev1.PodTemplateSpec) (mains, sidecars []string) {
	for _, c := range template.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways && !stoppedByTandem(c) {
			sidecars = append(sidecars, c.Name)
		}
	}
	named := map[string]bool{}
	for _, name := range strings.Split(template.Annotations[inject.SidecarsKey], ",") {
		named[strings.TrimSpace(name)] = true
	}
	for _, c := range template.Spec.Containers {
		switch {
		case named[c.Name] && stoppedByTandem(c):
		case named[c.Name]:
			sidecars = append(sidecars, c.Name)
		default:
			mains = append(mains, c.Name)
		}
	}
	return mains, sidecars
}

// stoppedByTandem: c runs `tandem sidecar` with a done file, so tandem
// stops it once the mains are done, a requested stop that ends with 0.
func stoppedByTandem(c corev1.Container) bool {
	command := inject.WithoutExecutor(c.Command)
	return len(command) >= 2 && path.Base(command[0]) == cmdline.Program && command[1] == cmdline.CmdSidecar &&
		slices.Contains(command, "--"+cmdline.FlagDoneFile)
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
