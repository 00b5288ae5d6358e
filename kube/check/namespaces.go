package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// labelledNamespaces: a webhook with no namespace labelled for injection
// injects nothing, and Jobs there keep being held.
func labelledNamespaces(namespaces []corev1.Namespace) []Finding {
	for _, ns := range namespaces {
		if ns.Labels[inject.InjectKey] == "enabled" {
			return nil
		}
	}
	return []Finding{{Check: checkNamespaces, Severity: Warning, Name: inject.InjectKey + "=enabled",
		Message: fmt.Sprintf("no namespace is labelled %s=enabled: the webhook injects no pod", inject.InjectKey),
		Fix:     fmt.Sprintf("kubectl label namespace NAMESPACE %s=enabled, where Jobs are to be injected", inject.InjectKey)}}
}
