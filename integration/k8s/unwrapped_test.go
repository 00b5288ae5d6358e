//go:build k8s

package k8s

import (
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// unwrappedJob is a Job as users write it before tandem: spec is its pod
// spec, annotations its pod template's (tandem.sh/sidecars and the like).
func unwrappedJob(t *testing.T, name string, annotations map[string]string, spec map[string]any) *kit.Manifest {
	t.Helper()
	m := ownJob(t, name, spec)
	m.Set(annotations, "spec", "template", "metadata", "annotations")
	return m
}

// unwrappedPod is a bare Pod as users write it before tandem.
func unwrappedPod(t *testing.T, name string, annotations map[string]string, spec map[string]any) *kit.Manifest {
	t.Helper()
	return kit.FromObject(t, map[string]any{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata":   map[string]any{"name": name, "annotations": annotations},
		"spec":       spec,
	})
}

// injected is m rewritten by `tandemctl inject --mode mode`, which must
// have injected it.
func injected(t *testing.T, m *kit.Manifest, mode string) *kit.Manifest {
	t.Helper()
	out, report := injectManifest(t, m.YAML(), "--mode", mode)
	t.Logf("tandemctl inject --mode %s: %s", mode, report)
	return kit.Parse(t, "tandemctl inject --mode "+mode, out)
}

// withVolume adds an emptyDir volume mounted at path in every container
// of the pod spec (made before injection).
func withVolume(spec map[string]any, name, path string) map[string]any {
	vols, _ := spec["volumes"].([]any)
	spec["volumes"] = append(vols, map[string]any{"name": name, "emptyDir": map[string]any{}})
	for _, key := range []string{"initContainers", "containers"} {
		list, _ := spec[key].([]any)
		for _, c := range list {
			c := c.(map[string]any)
			mounts, _ := c["volumeMounts"].([]any)
			c["volumeMounts"] = append(mounts, map[string]any{"name": name, "mountPath": path})
		}
	}
	return spec
}

// deleted is a pod that was deleted: its containers' last statuses, as
// the kubelet reported them before the object went, and how long after
// the delete that was.
type deleted struct {
	last pod
	took time.Duration
}

// deleteWatched watches pod name, calls del once the watch has seen the
// pod, and returns when every container has terminated (at most bound
// later, else the test fails).
func (n *namespace) deleteWatched(name string, bound time.Duration, del func()) deleted {
	n.t.Helper()
	seen := make(chan struct{})
	done := make(chan error, 1)
	var last pod
	var once sync.Once
	go func() {
		done <- watch(n, bound, func(p pod) bool {
			last = p
			once.Do(func() { close(seen) })
			return allTerminated(p)
		}, "pod", name)
	}()
	select {
	case <-seen:
	case err := <-done:
		n.t.Fatalf("pod %s: %v", name, err)
	}
	start := time.Now()
	del()
	if err := <-done; err != nil {
		n.t.Fatalf("pod %s: not every container terminated within %s of its deletion: %v", name, bound, err)
	}
	return deleted{last: last, took: time.Since(start)}
}

// allTerminated tells whether every container of p (init containers too)
// has terminated.
func allTerminated(p pod) bool {
	all := append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...)
	for _, cs := range all {
		if cs.State.Terminated == nil {
			return false
		}
	}
	return len(all) > 0
}
