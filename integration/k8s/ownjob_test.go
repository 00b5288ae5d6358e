//go:build k8s

package k8s

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// ownJob is a Job of the test's own (no example behind it): one pod, never
// retried, so a failure ends it.
func ownJob(t *testing.T, name string, spec map[string]any) *kit.Manifest {
	t.Helper()
	if _, ok := spec["restartPolicy"]; !ok {
		spec["restartPolicy"] = "Never"
	}
	return kit.FromObject(t, map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"backoffLimit": 0,
			"template":     map[string]any{"spec": spec},
		},
	})
}

// ctr is a container of the test image running command.
func ctr(name string, command ...string) map[string]any {
	return map[string]any{"name": name, "image": testImage, "imagePullPolicy": "Never", "command": command}
}

// nativeSidecar is an init container with restartPolicy Always: the
// kubelet's own sidecar (Kubernetes 1.29+), stopped after the mains ended.
func nativeSidecar(name string, command ...string) map[string]any {
	c := ctr(name, command...)
	c["restartPolicy"] = "Always"
	return c
}

// withDoneDir mounts an emptyDir at /run/tandem in every container.
func withDoneDir(spec map[string]any) map[string]any {
	spec["volumes"] = []any{map[string]any{"name": "tandem", "emptyDir": map[string]any{}}}
	for _, key := range []string{"initContainers", "containers"} {
		list, _ := spec[key].([]any)
		for _, c := range list {
			c.(map[string]any)["volumeMounts"] = []any{map[string]any{"name": "tandem", "mountPath": "/run/tandem"}}
		}
	}
	return spec
}
