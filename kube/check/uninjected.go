package check

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// uninjected is a pod that tandem's webhook selects and would inject, yet
// that runs without tandem.
type uninjected struct {
	pod  *corev1.Pod
	hook tandemWebhook
	// report is inject's answer for it, Injected.
	report inject.Report
}

// uninjectedPods finds the pods not yet finished that a webhook of tandem
// selects, that carry no tandem.sh/injected, and that injection would
// change: admitted while the webhook did not answer (failurePolicy:
// Ignore), or created before their namespace was labelled. Their sidecars
// outlive their mains, and their Jobs never complete.
func uninjectedPods(ctx context.Context, pods []corev1.Pod, jobs []batchv1.Job, hooks []tandemWebhook) []Finding {
	if len(hooks) == 0 {
		return nil
	}
	opts := wouldInjectOptions()
	var found []uninjected
	for i := range pods {
		pod := &pods[i]
		if finished(pod) || pod.Annotations[inject.InjectedKey] != "" {
			continue
		}
		hook, ok := selecting(hooks, pod)
		if !ok {
			continue
		}
		if !mayNameSidecars(pod, opts.Presets) {
			continue
		}
		if r, would := wouldInject(ctx, pod, opts); would {
			found = append(found, uninjected{pod: pod, hook: hook, report: r})
		}
	}
	if len(found) == 0 {
		return nil
	}
	cronJobs := cronJobsOfJobs(jobs)
	findings := make([]Finding, 0, len(found))
	for _, u := range found {
		findings = append(findings, u.finding(cronJobs))
	}
	return findings
}

func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil
}

// selecting is the first webhook of tandem that the API server calls for
// pod: its namespaceSelector selects the pod's namespace and its
// objectSelector (none: every pod) the pod.
func selecting(hooks []tandemWebhook, pod *corev1.Pod) (tandemWebhook, bool) {
	for _, w := range hooks {
		if !slices.Contains(w.selected, pod.Namespace) {
			continue
		}
		if sel := w.hook.ObjectSelector; sel != nil {
			s, err := metav1.LabelSelectorAsSelector(sel)
			if err != nil || !s.Matches(labels.Set(pod.Labels)) {
				continue
			}
		}
		return w, true
	}
	return tandemWebhook{}, false
}

// wouldInjectOptions are the webhook's defaults, with a resolver that
// reads no registry.
func wouldInjectOptions() inject.Options {
	return inject.Options{Mode: inject.Classic, Image: "tandem", Version: "check", Presets: presets.Builtin(), Resolver: assumedImages{}}
}

// assumedImages answers every image with an ENTRYPOINT and no STOPSIGNAL,
// without a lookup: what injection would do does not depend on them, and
// check reads no registry.
type assumedImages struct{}

func (assumedImages) Resolve(context.Context, string) (inject.ImageConfig, error) {
	return inject.ImageConfig{Entrypoint: []string{"/entrypoint"}}, nil
}

// mayNameSidecars: the pod names a sidecar by annotation or has a known
// sidecar's image, as inject would name them (it may still find none). A
// quick test that spares the many pods without sidecars the YAML parse,
// which would be most of check's time.
func mayNameSidecars(pod *corev1.Pod, table *presets.Table) bool {
	if strings.TrimSpace(pod.Annotations[inject.SidecarsKey]) != "" {
		return true
	}
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range list {
			if _, ok := table.Lookup(c.Image); ok {
				return true
			}
		}
	}
	return false
}

// wouldInject asks inject, as the webhook does, whether it would change
// pod, its images assumed readable. A pod without sidecars, opted out, or
// that cannot be injected (which the webhook rejects) does not count.
func wouldInject(ctx context.Context, pod *corev1.Pod, opts inject.Options) (inject.Report, bool) {
	node, err := podNode(pod)
	if err != nil {
		return inject.Report{}, false
	}
	r := inject.Resource(ctx, node, opts)
	return r, r.Status == inject.Injected
}

// podNode is the pod as the webhook reads it: its JSON as a YAML node.
func podNode(pod *corev1.Pod) (*yaml.Node, error) {
	raw, err := json.Marshal(corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, Labels: pod.Labels, Annotations: pod.Annotations},
		Spec:       pod.Spec,
	})
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("pod %s/%s as a manifest: %v", pod.Namespace, pod.Name, err)
	}
	return doc.Content[0], nil
}

// finding names the pod, what it holds up, the likely cause and the fix.
func (u uninjected) finding(cronJobs map[string]string) Finding {
	pod := u.pod
	o := owner{job: controllerOf(pod.OwnerReferences, "Job")}
	o.cronJob = cronJobs[pod.Namespace+"/"+o.job]
	what := fmt.Sprintf("not injected, though webhook %s selects namespace %s and would inject it (mains: %s; sidecars: %s)",
		u.hook.name(), pod.Namespace, strings.Join(u.report.Mains, ", "), strings.Join(append(slices.Clone(u.report.Sidecars), u.report.Natives...), ", "))
	// Classic sidecars hold a pod whose mains end; native ones, or a pod
	// that restarts its containers, only lose the order tandem gives.
	severity, harm := Error, "its sidecars run on after its mains end, so "+heldWhat(o)
	if len(u.report.Sidecars) == 0 || pod.Spec.RestartPolicy == corev1.RestartPolicyAlways {
		severity, harm = Warning, "its containers run without tandem's start and stop order"
	}
	return Finding{Check: checkUninjected, Severity: severity, Namespace: pod.Namespace, Name: pod.Name,
		Message: what + ": " + harm + "; likely admitted while the webhook did not answer, under failurePolicy: Ignore, or created before the namespace was labelled",
		Fix:     recreateFix(pod, o)}
}

// heldWhat is what a pod held by its sidecars keeps from completing.
func heldWhat(o owner) string {
	switch {
	case o.cronJob != "":
		return fmt.Sprintf("Job %s of CronJob %s cannot complete", o.job, o.cronJob)
	case o.job != "":
		return fmt.Sprintf("Job %s cannot complete", o.job)
	}
	return "the pod cannot complete"
}

// recreateFix: a new pod goes through admission, and the webhook injects
// it; a pod without a controller must be created again by hand.
func recreateFix(pod *corev1.Pod, o owner) string {
	del := fmt.Sprintf("kubectl delete pod -n %s %s", pod.Namespace, pod.Name)
	if o.job != "" {
		return fmt.Sprintf("delete the pod: its Job makes a new one, which the webhook injects (%s)", del)
	}
	for _, ref := range pod.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return fmt.Sprintf("delete the pod: its %s makes a new one, which the webhook injects (%s)", ref.Kind, del)
		}
	}
	return fmt.Sprintf("create the pod again from its manifest, and the webhook injects it (%s first)", del)
}
