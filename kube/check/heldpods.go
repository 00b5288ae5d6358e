package check

import (
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// heldPod is a pod whose main containers all ended while others run on:
// the Job it belongs to cannot complete.
type heldPod struct {
	pod *corev1.Pod
	// mains ended; holders still run.
	mains, holders []string
	// heldFor is the time since the last main ended.
	heldFor time.Duration
}

// owner is the Job that made a pod, and the CronJob that made the Job.
type owner struct{ job, cronJob string }

// heldPods finds the held pods among pods and says, for each, who owns it
// (the Job, and the CronJob of jobs that made it) and how to fix it.
func (c checker) heldPods(pods []corev1.Pod, jobs []batchv1.Job, namespaces []corev1.Namespace, stuckAfter time.Duration) []Finding {
	var held []heldPod
	for i := range pods {
		if h, ok := isHeld(&pods[i], c.now, stuckAfter); ok {
			held = append(held, h)
		}
	}
	if len(held) == 0 {
		return nil
	}
	cronJobs := cronJobsOfJobs(jobs)
	labelled := map[string]bool{}
	for _, ns := range namespaces {
		labelled[ns.Name] = ns.Labels[inject.InjectKey] == "enabled"
	}
	findings := make([]Finding, 0, len(held))
	for _, h := range held {
		o := owner{job: controllerOf(h.pod.OwnerReferences, "Job")}
		o.cronJob = cronJobs[h.pod.Namespace+"/"+o.job]
		findings = append(findings, Finding{
			Check: checkHeldPod, Severity: Error, Namespace: h.pod.Namespace, Name: h.pod.Name,
			Message: h.message(o), Fix: h.fix(o, labelled[h.pod.Namespace]),
		})
	}
	return findings
}

// isHeld says whether every main container of pod has ended, the last
// more than stuckAfter ago, while another container still runs. The mains
// are the containers tandem.sh/sidecars does not name; without the
// annotation, every container still running is taken for a sidecar.
func isHeld(pod *corev1.Pod, now time.Time, stuckAfter time.Duration) (heldPod, bool) {
	// A pod that restarts every container never stays with its mains ended.
	if pod.Status.Phase != corev1.PodRunning || pod.Spec.RestartPolicy == corev1.RestartPolicyAlways || pod.DeletionTimestamp != nil {
		return heldPod{}, false
	}
	sidecars, annotated := sidecarNames(pod)
	h := heldPod{pod: pod}
	var lastEnd time.Time
	for _, st := range pod.Status.ContainerStatuses {
		running := st.State.Running != nil
		isSidecar := running
		if annotated {
			isSidecar = sidecars[st.Name]
		}
		switch {
		case isSidecar:
			if running {
				h.holders = append(h.holders, st.Name)
			}
		case st.State.Terminated == nil:
			return heldPod{}, false // a main still runs or waits
		default:
			h.mains = append(h.mains, st.Name)
			if end := st.State.Terminated.FinishedAt.Time; end.After(lastEnd) {
				lastEnd = end
			}
		}
	}
	h.heldFor = now.Sub(lastEnd)
	if len(h.mains) == 0 || len(h.holders) == 0 || len(pod.Status.ContainerStatuses) < len(pod.Spec.Containers) || h.heldFor <= stuckAfter {
		return heldPod{}, false
	}
	return h, true
}

// sidecarNames reads the tandem.sh/sidecars annotation, and whether the
// pod has it.
func sidecarNames(pod *corev1.Pod) (map[string]bool, bool) {
	value, ok := pod.Annotations[inject.SidecarsKey]
	if !ok || strings.TrimSpace(value) == "" {
		return nil, false
	}
	names := map[string]bool{}
	for _, name := range strings.Split(value, ",") {
		names[strings.TrimSpace(name)] = true
	}
	return names, true
}

// cronJobsOfJobs maps "namespace/job" to the CronJob that made the Job:
// its controller, or a CronJob among its owners, as kubectl 1.27
// writes `create job --from=cronjob/…` (an owner, not the controller).
func cronJobsOfJobs(jobs []batchv1.Job) map[string]string {
	cronJobs := map[string]string{}
	for _, job := range jobs {
		cj := controllerOf(job.OwnerReferences, "CronJob")
		if cj == "" {
			cj = ownerOf(job.OwnerReferences, "CronJob")
		}
		if cj != "" {
			cronJobs[job.Namespace+"/"+job.Name] = cj
		}
	}
	return cronJobs
}

// ownerOf names the only owner of kind, if there is one and no other of
// that kind.
func ownerOf(refs []metav1.OwnerReference, kind string) string {
	name := ""
	for _, ref := range refs {
		if ref.Kind == kind {
			if name != "" {
				return ""
			}
			name = ref.Name
		}
	}
	return name
}

// controllerOf names the owner of kind that controls an object, if any.
func controllerOf(refs []metav1.OwnerReference, kind string) string {
	for _, ref := range refs {
		if ref.Kind == kind && ref.Controller != nil && *ref.Controller {
			return ref.Name
		}
	}
	return ""
}
