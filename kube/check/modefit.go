package check

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// modeFit finds the pods whose mode no longer fits their node: native
// sidecars (init containers with restartPolicy: Always, as `tandemctl
// inject --mode native` writes them) on a node whose kubelet is before
// 1.29, which runs them as plain init containers: they never end, and the
// pod's mains never start. A cluster that gained such a node after the
// pods were injected, or a webhook that was told --mode native, leaves
// them there.
func modeFit(pods []corev1.Pod, nodes []corev1.Node) []Finding {
	kubelets := map[string]string{}
	for _, n := range nodes {
		kubelets[n.Name] = n.Status.NodeInfo.KubeletVersion
	}
	var findings []Finding
	for _, p := range pods {
		natives := nativeSidecarNames(p.Spec)
		version, known := kubelets[p.Spec.NodeName]
		if len(natives) == 0 || !known {
			continue
		}
		choice := inject.ChooseMode(inject.ClusterVersions{APIServer: inject.NativeSince, Kubelets: map[string]string{p.Spec.NodeName: version}})
		if choice.Reason != inject.ReasonOldKubelet {
			continue
		}
		findings = append(findings, Finding{Check: checkModeFit, Severity: Error, Namespace: p.Namespace, Name: p.Name,
			Message: fmt.Sprintf("pod %s has native sidecars (%s), but %s: they run there as plain init containers that never end, so its mains never start",
				p.Name, strings.Join(natives, ", "), choice.Why),
			Fix: "inject it in classic mode (tandemctl inject --mode classic, or --mode auto, which reads every node; the webhook: --mode auto), or keep it on nodes at " + inject.NativeSince + " or later (a nodeSelector)"})
	}
	return findings
}

// nativeSidecarNames are the init containers of spec with restartPolicy:
// Always.
func nativeSidecarNames(spec corev1.PodSpec) []string {
	var names []string
	for _, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			names = append(names, c.Name)
		}
	}
	return names
}
