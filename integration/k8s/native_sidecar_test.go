//go:build k8s

package k8s

import (
	"sync"
	"testing"
	"time"
)

// nativeBound is how long a native sidecar Job may take: the kubelet's
// 30 s grace for a sidecar that ignores SIGTERM, plus room.
const nativeBound = 3 * time.Minute

// A native sidecar (init container, restartPolicy Always) whose process is
// PID 1 and ignores SIGTERM (busybox sleep: PID 1 has no default action)
// holds the pod for the whole grace period, and the kubelet SIGKILLs it
// (exit 137). With `tandem run` as its PID 1, SIGTERM is forwarded to
// sleep, which dies of it at once (exit 143). The same main, `sleep 2`;
// both Jobs side by side. The bare PID 1 is the control: how it ends and
// when are the kubelet's, reported, not asserted.
func TestNativeSidecarIgnoringSIGTERM(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	n := newNamespace(t)
	variants := []struct {
		job      string
		sidecar  []string
		exitCode int
		control  bool
	}{
		{"bare-pid1", []string{"sleep", "3600"}, 137, true},
		{"tandem-run", []string{"tandem", "run", "--", "sleep", "3600"}, 143, false},
	}
	took := make([]time.Duration, len(variants))
	var wg sync.WaitGroup
	for i, v := range variants {
		m := ownJob(t, v.job, map[string]any{
			"initContainers": []any{nativeSidecar("proxy", v.sidecar...)},
			"containers":     []any{ctr("main", "sleep", "2")},
		})
		start := n.apply(m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			end, at, err := n.waitJob(v.job, nativeBound)
			if err != nil || (end != "Complete" && !v.control) {
				t.Errorf("job %s: ended %q, %v; want Complete", v.job, end, err)
				return
			}
			took[i] = at.Sub(start)
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, v := range variants {
		proxy, _ := n.onlyPod(v.job).container("proxy")
		code, ended := proxy.exitCode()
		if !v.control && (!ended || code != v.exitCode) {
			t.Errorf("job %s: sidecar ended %v with %d; want exit code %d", v.job, ended, code, v.exitCode)
		}
		t.Logf("native sidecar, %-10s as PID 1: apply → end in %s, sidecar exit code %d", v.job, took[i].Round(100*time.Millisecond), code)
	}
}
