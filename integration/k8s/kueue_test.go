//go:build k8s

package k8s

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Kueue holds its queue's quota until a Job has ended: a sidecar that
// never stops holds every Job behind it. Two Jobs, a queue with room for
// one: with tandem the first completes, its quota is released, the
// second is admitted and completes.

const (
	// kueuePairBound bounds two queued Jobs from the first's apply to the
	// second's end.
	kueuePairBound = 4 * time.Minute
	// kueueControlMargin is added to the injected pair's time for the
	// control's watch.
	kueueControlMargin = 30 * time.Second
	// kueueRelease is the file the test creates in the first Job's main to
	// let it end: the first must still hold the quota when Kueue weighs
	// the second.
	kueueRelease = "/tmp/release"
)

// The first Job's main works until the test releases it; the second's
// works and ends. Their proxy runs until stopped.
var (
	kueueHeldMain = "echo working; until [ -e " + kueueRelease + " ]; do sleep 0.1; done; echo work done"
	kueueMain     = "echo working; sleep 1; echo work done"
	kueueProxy    = []string{"sleep", "3600"}
)

// queuedPair is what was seen of Jobs first and second in the queue.
type queuedPair struct {
	n                      *namespace
	ww                     *workloadWatch
	applied, secondApplied time.Time
	// released: the test let the first's main end.
	released time.Time
}

// startQueuedPair applies Job first (its main held), once Kueue has
// admitted it applies second, and once Kueue has refused the second quota
// lets the first's main end. annotations go on both pod templates.
func startQueuedPair(t *testing.T, n *namespace, annotations map[string]string) *queuedPair {
	t.Helper()
	q := &queuedPair{n: n, ww: n.watchWorkloads(2*kueuePairBound + kueueControlMargin)}
	q.applied = n.apply(kueueJob(t, "first", kueueHeldMain, kueueProxy, annotations))
	if _, ok := q.ww.await("first", kueuePairBound, admitted); !ok {
		t.Fatalf("Kueue did not admit the first Job within %s", kueuePairBound)
	}
	q.secondApplied = n.apply(kueueJob(t, "second", kueueMain, kueueProxy, annotations))
	if s, ok := q.ww.await("second", kueuePairBound, func(s workloadSeen) bool { return !s.pending.IsZero() || admitted(s) }); !ok || admitted(s) {
		t.Fatalf("the second Job's Workload while the first holds the quota: %s; want refused quota",
			s.since(q.secondApplied))
	}
	p := n.waitPod("job-name=first", kueuePairBound, func(p pod) bool {
		main, _ := p.container("main")
		return main.running()
	})
	n.run(nil, "exec", p.Metadata.Name, "-c", "main", "--", "touch", kueueRelease)
	q.released = time.Now()
	return q
}

// The two Jobs, their proxy named by tandem.sh/sidecars, injected by the
// webhook in either mode: the first completes and its Workload finishes;
// the second, refused quota while the first ran, is admitted only after,
// and completes. The control, the same two with a bare classic sidecar,
// is watched as long as the injected pairs took, plus a margin.
func TestKueueQueueAdvancesWithTandem(t *testing.T) {
	t.Parallel()
	kueueInstalled(t)
	var mu sync.Mutex
	var longest time.Duration
	t.Run("injected", func(t *testing.T) {
		eachMode(t, func(t *testing.T, mode string) {
			took := kueueInjectedPair(t, mode)
			mu.Lock()
			longest = max(longest, took)
			mu.Unlock()
		})
	})
	if longest == 0 {
		longest = kueuePairBound
	}
	t.Run("bare-classic", func(t *testing.T) { kueueBarePair(t, longest+kueueControlMargin) })
}

// kueueInjectedPair plays the pair injected in mode, and returns the time
// from the first's release to the second's end.
func kueueInjectedPair(t *testing.T, mode string) time.Duration {
	n := injectingNamespace(t, mode)
	n.kueueQueueFor()
	q := startQueuedPair(t, n, kueueInjected())
	firstTook := n.mustComplete("first", q.applied, kueuePairBound)
	first, ok := q.ww.await("first", kueuePairBound, finished)
	if !ok || first.finishedReason != "Succeeded" {
		t.Fatalf("the first Job's Workload: %s; want Finished, Succeeded", first.since(q.applied))
	}
	secondTook := n.mustComplete("second", q.secondApplied, kueuePairBound)
	second, ok := q.ww.await("second", kueuePairBound, finished)
	if !ok || second.finishedReason != "Succeeded" {
		t.Fatalf("the second Job's Workload: %s; want Finished, Succeeded", second.since(q.applied))
	}
	if second.admitted.Before(first.finished) {
		t.Errorf("the second Job was admitted before the first's Workload finished: first %s; second %s",
			first.since(q.applied), second.since(q.applied))
	}
	for _, name := range []string{"first", "second"} {
		p := n.onlyPod(name)
		if spec, _ := p.spec("proxy"); !strings.Contains(strings.Join(spec.Command, " "), "tandem sidecar") {
			t.Errorf("job %s: the proxy's command %v: not wrapped by tandem sidecar", name, spec.Command)
		}
		assertAllZero(t, p)
	}
	t.Logf("%s, injected: first apply → Complete %s (released after %s), second apply → Complete %s; "+
		"the second waited %s for admission, admitted %s after the first's Workload finished; Kueue's word while it waited: %q",
		mode, firstTook.Round(100*time.Millisecond), q.released.Sub(q.applied).Round(100*time.Millisecond),
		secondTook.Round(100*time.Millisecond), second.admitted.Sub(q.secondApplied).Round(100*time.Millisecond),
		second.admitted.Sub(first.finished).Round(100*time.Millisecond), second.pendingMessage)
	t.Logf("%s, Workloads seen from the first's apply: first %s; second %s", mode, first.since(q.applied), second.since(q.applied))
	return q.secondApplied.Add(secondTook).Sub(q.released)
}

// kueueBarePair is the control: the pair with a bare classic sidecar, no
// tandem (the namespace is not labelled for the webhook), watched for
// bound after the first's release. What happened is reported, never
// asserted; the Jobs are deleted after.
func kueueBarePair(t *testing.T, bound time.Duration) {
	n := newNamespace(t)
	n.kueueQueueFor()
	q := startQueuedPair(t, n, nil)
	firstEnd, _, err := n.waitJob("first", bound)
	if err != nil {
		firstEnd = "still active"
	}
	second, _ := q.ww.await("second", bound-time.Since(q.released), admitted)
	first := q.ww.of("first")
	p := n.onlyPod("first")
	t.Logf("control, bare classic sidecar, no tandem: %s after the first's main was released the first Job is %s "+
		"(codes %s), its Workload %s; the second %s, its Workload %s; Kueue's word on the second: %q",
		time.Since(q.released).Round(100*time.Millisecond), firstEnd, codes(p), first.since(q.applied),
		map[bool]string{true: "admitted", false: "never admitted"}[admitted(second)], second.since(q.applied), second.pendingMessage)
	n.run(nil, "delete", "jobs", "--all", "--wait=false")
}
