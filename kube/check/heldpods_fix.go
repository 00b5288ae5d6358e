package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
)

// message says which containers hold the pod, since when, and what waits.
func (h heldPod) message(o owner) string {
	return fmt.Sprintf("held for %s: main %s ended, %s still %s, so %s",
		h.heldFor.Round(time.Second), containers(h.mains), quoted(h.holders), runVerb(h.holders), heldWhat(o))
}

// fix says how to make the sidecars stop with the mains: inject tandem
// into what makes the pods, or, if tandem is there already, where to look.
func (h heldPod) fix(o owner, labelled bool) string {
	ns, sidecars := h.pod.Namespace, strings.Join(h.holders, ",")
	if _, injected := h.pod.Annotations[inject.InjectedKey]; injected {
		return fmt.Sprintf("tandem is injected in this pod, yet %s did not stop: its log says why (kubectl logs -n %s %s -c %s)",
			quoted(h.holders), ns, h.pod.Name, h.holders[0])
	}
	var wrap string
	switch {
	case o.cronJob != "":
		wrap = fmt.Sprintf("wrap the CronJob's containers in tandem: kubectl get cronjob %s -n %s -o yaml | tandemctl inject --sidecar %s - | kubectl apply -f -",
			o.cronJob, ns, sidecars)
	case o.job != "":
		wrap = fmt.Sprintf("run tandemctl inject --sidecar %s on the manifest of Job %s and create it again (a Job's pod template cannot change)",
			sidecars, o.job)
	default:
		wrap = fmt.Sprintf("run tandemctl inject --sidecar %s on the manifest of pod %s and create it again", sidecars, h.pod.Name)
	}
	hook := fmt.Sprintf("or let tandem's webhook inject it: annotate the pod template %s: %q", inject.SidecarsKey, sidecars)
	if labelled {
		hook += fmt.Sprintf(" (namespace %s is labelled %s=enabled)", ns, inject.InjectKey)
	} else {
		hook += fmt.Sprintf(" and label the namespace: kubectl label namespace %s %s=enabled", ns, inject.InjectKey)
	}
	return wrap + "; " + hook
}

func containers(names []string) string {
	if len(names) == 1 {
		return "container " + quoted(names)
	}
	return "containers " + quoted(names)
}

func runVerb(names []string) string {
	if len(names) == 1 {
		return "runs"
	}
	return "run"
}

// quoted joins names as "a", "b".
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
