package check

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// replicas checks that the Deployment behind a webhook's Service has its
// replicas available: with none, the API server has no one to call.
func replicas(w tandemWebhook, dep *appsv1.Deployment) []Finding {
	want := int32(1)
	if dep.Spec.Replicas != nil {
		want = *dep.Spec.Replicas
	}
	available := dep.Status.AvailableReplicas
	describe := fmt.Sprintf("kubectl -n %s describe deployment %s; kubectl -n %s logs deployment/%s", dep.Namespace, dep.Name, dep.Namespace, dep.Name)
	f := Finding{Check: checkReplicas, Namespace: dep.Namespace, Name: dep.Name}
	switch {
	case want == 0:
		f.Severity, f.Fix = Error, fmt.Sprintf("kubectl -n %s scale deployment %s --replicas=2", dep.Namespace, dep.Name)
		f.Message = fmt.Sprintf("Deployment %s is scaled to zero; %s", dep.Name, w.consequence())
	case available == 0:
		f.Severity, f.Fix = Error, describe
		f.Message = fmt.Sprintf("none of the %d replicas of Deployment %s is available; %s", want, dep.Name, w.consequence())
	case available < want:
		f.Severity, f.Fix = Warning, describe
		f.Message = fmt.Sprintf("%d of the %d replicas of Deployment %s are available", available, want, dep.Name)
	default:
		return nil
	}
	return []Finding{f}
}
