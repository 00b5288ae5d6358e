//go:build k8s

package k8s

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

const (
	// jobBound is how long a Job of stand-ins may take from apply to its
	// end: they run for a second or two; the rest is room for a loaded
	// two-core machine (the images are local, the kubelet starts them).
	jobBound = 2 * time.Minute
	// sidecarStopBound is how long after the main's end its sidecar may
	// still run. With tandem it is milliseconds.
	sidecarStopBound = 10 * time.Second
)

func contextFor(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// playedJob is a Job that ran to its end.
type playedJob struct {
	n    *namespace
	pod  pod // its only pod, as it ended
	logs []kit.Line
	took time.Duration // apply → Complete
}

// playJob applies m, which must make a Job that completes with one pod,
// and returns it with its pod and logs.
func playJob(t *testing.T, n *namespace, m *kit.Manifest) playedJob {
	t.Helper()
	start := n.apply(m)
	took := n.mustComplete(m.Name(), start, jobBound)
	p := n.onlyPod(m.Name())
	t.Logf("job %s (%s): apply → Complete in %s", m.Name(), m.Source, took.Round(time.Millisecond))
	return playedJob{n: n, pod: p, logs: n.podLogs(p), took: took}
}

// exitCodes asserts each listed container terminated with its code.
func (pj playedJob) exitCodes(want map[string]int) {
	t := pj.n.t
	t.Helper()
	for _, ctr := range slices.Sorted(maps.Keys(want)) {
		cs, ok := pj.pod.container(ctr)
		if !ok {
			t.Errorf("pod has no container %s", ctr)
			continue
		}
		if code, ended := cs.exitCode(); !ended || code != want[ctr] {
			t.Errorf("container %s: terminated %v, exit code %d; want exit code %d", ctr, ended, code, want[ctr])
		}
	}
}
