//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// What the Kueue tests make (a queue with room for one Job, the Jobs it
// admits) and read (Kueue's Workloads).

// kueueJobCPU is what each container of a test Job requests; the queue's
// quota is one Job's: its main and its sidecar.
const (
	kueueJobCPU   = "100m"
	kueueQueueCPU = "200m"
	kueueQueue    = "one-at-a-time"
)

// kueueQueueFor gives n a LocalQueue of a ClusterQueue of its own, with
// quota for one Job at a time, and labels n for Kueue's webhooks. The
// ClusterQueue, not namespaced, is deleted when the test ends.
func (n *namespace) kueueQueueFor() {
	n.t.Helper()
	n.run(nil, "label", "namespace", n.name, kueueTestLabel+"=true")
	n.applyRaw([]byte(fmt.Sprintf(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: %[1]s}
spec:
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %[1]s}}
  resourceGroups:
    - coveredResources: [cpu]
      flavors:
        - name: %[2]s
          resources: [{name: cpu, nominalQuota: %[3]s}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: %[4]s}
spec: {clusterQueue: %[1]s}
`, n.name, kueueFlavor, kueueQueueCPU, kueueQueue)))
	n.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
		defer cancel()
		// Kueue's finalizer holds it until the namespace's Workloads are gone.
		_, _ = kubectl(ctx, nil, "delete", "clusterqueue", n.name, "--wait=false")
	})
	n.run(nil, "wait", "--for=condition=Active", "--timeout=1m", "clusterqueue/"+n.name, "localqueue/"+kueueQueue)
}

// kueueJob is Job name in the queue: main runs script, its sidecar
// "proxy" runs command; each asks kueueJobCPU. annotations go on the pod
// template (tandem's, for the webhook).
func kueueJob(t *testing.T, name, script string, proxy []string, annotations map[string]string) *kit.Manifest {
	main, sidecar := ctr("main", "sh", "-c", script), ctr("proxy", proxy...)
	for _, c := range []map[string]any{main, sidecar} {
		c["resources"] = map[string]any{"requests": map[string]any{"cpu": kueueJobCPU}}
	}
	m := ownJob(t, name, map[string]any{
		"containers": []any{main, sidecar},
		// The bare sidecar's sleep, PID 1, ignores SIGTERM: its deletion is not waited for.
		"terminationGracePeriodSeconds": 5,
	})
	m.Set(map[string]any{"kueue.x-k8s.io/queue-name": kueueQueue}, "metadata", "labels")
	if annotations != nil {
		m.Set(annotations, "spec", "template", "metadata", "annotations")
	}
	return m
}

// kueueInjected is the pod template annotations of a test Job for the
// webhook: its sidecar named, and the signal it stops on said (its image
// is in no registry the webhook reads), then more (name, value, ...).
func kueueInjected(more ...string) map[string]string {
	a := map[string]string{"tandem.sh/sidecars": "proxy", "tandem.sh/stop-signal.proxy": "TERM"}
	for i := 0; i+1 < len(more); i += 2 {
		a[more[i]] = more[i+1]
	}
	return a
}

// workload is what the tests read of a Kueue Workload.
type workload struct {
	Metadata struct {
		Name            string `json:"name"`
		OwnerReferences []struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
	Status struct {
		Conditions []struct {
			Type, Status, Reason, Message string
		} `json:"conditions"`
	} `json:"status"`
}

// job is the name of the Job the Workload stands for.
func (w workload) job() string {
	for _, o := range w.Metadata.OwnerReferences {
		if o.Kind == "Job" {
			return o.Name
		}
	}
	return ""
}

// condition is the status ("True", "False", "" when absent) and reason of
// condition kind.
func (w workload) condition(kind string) (status, reason string) {
	for _, c := range w.Status.Conditions {
		if c.Type == kind {
			return c.Status, c.Reason
		}
	}
	return "", ""
}

// message is condition kind's message.
func (w workload) message(kind string) string {
	for _, c := range w.Status.Conditions {
		if c.Type == kind {
			return c.Message
		}
	}
	return ""
}

func (w workload) is(kind string) bool {
	status, _ := w.condition(kind)
	return status == "True"
}

// workloadSeen is what the watch saw of one Job's Workload: when it was
// first seen refused quota (and Kueue's word why), admitted and finished,
// by this test's clock, and how it finished.
type workloadSeen struct {
	pending, admitted, finished time.Time
	pendingMessage              string
	finishedReason              string
}

// workloadWatch follows every Workload of a namespace in the background.
type workloadWatch struct {
	mu   sync.Mutex
	seen map[string]*workloadSeen
	// changed is signalled on every event, for awaiters.
	changed chan struct{}
}

// watchWorkloads follows n's Workloads until the test ends, at most
// bound.
func (n *namespace) watchWorkloads(bound time.Duration) *workloadWatch {
	ww := &workloadWatch{seen: map[string]*workloadSeen{}, changed: make(chan struct{}, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = watchUntil(ctx, n, func(w workload) bool { ww.record(w); return false }, "workloads.kueue.x-k8s.io")
	}()
	n.t.Cleanup(func() { cancel(); <-done })
	return ww
}

func (ww *workloadWatch) record(w workload) {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	s := ww.seen[w.job()]
	if s == nil {
		s = &workloadSeen{}
		ww.seen[w.job()] = s
	}
	now := time.Now()
	if status, _ := w.condition("QuotaReserved"); status == "False" && s.pending.IsZero() {
		s.pending, s.pendingMessage = now, w.message("QuotaReserved")
	}
	if w.is("Admitted") && s.admitted.IsZero() {
		s.admitted = now
	}
	if w.is("Finished") && s.finished.IsZero() {
		s.finished = now
		_, s.finishedReason = w.condition("Finished")
	}
	select {
	case ww.changed <- struct{}{}:
	default:
	}
}

// of is a copy of what was seen of Job name's Workload.
func (ww *workloadWatch) of(job string) workloadSeen {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	if s := ww.seen[job]; s != nil {
		return *s
	}
	return workloadSeen{}
}

// await waits until ok holds for Job job's Workload, at most bound; it
// returns what was seen and whether ok came to hold.
func (ww *workloadWatch) await(job string, bound time.Duration, ok func(workloadSeen) bool) (workloadSeen, bool) {
	deadline := time.After(bound)
	for {
		if s := ww.of(job); ok(s) {
			return s, true
		}
		select {
		case <-ww.changed:
		case <-deadline:
			return ww.of(job), false
		}
	}
}

func admitted(s workloadSeen) bool { return !s.admitted.IsZero() }
func finished(s workloadSeen) bool { return !s.finished.IsZero() }

// since is the seen times relative to from, for the log.
func (s workloadSeen) since(from time.Time) string {
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.Sub(from).Round(100 * time.Millisecond).String()
	}
	return strings.TrimSpace(strings.Join([]string{"pending " + at(s.pending), "admitted " + at(s.admitted),
		"finished " + at(s.finished) + " " + s.finishedReason}, ", "))
}
