//go:build k8s

package k8s

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// thousandPods is the figure: check over so many pods in at most
// five seconds.
const thousandPods = 1000

// The figure: `tandemctl check -n NS` over 1,000 pods, timed and printed
// (no assertion on time: the goal is 5 s). The pods ask for a node no node
// is, so nothing runs; the namespace goes when the test ends. Not
// parallel: the figure is the check's alone, and the 1,000 pods would slow
// the others.
func TestCheckThousandPods(t *testing.T) {
	n := newNamespace(t)
	t.Cleanup(func() {
		// Before newNamespace's own cleanup (which does not wait): the
		// next tests find the cluster as it was.
		ctx, cancel := contextFor(5 * time.Minute)
		defer cancel()
		if _, err := kubectl(ctx, nil, "delete", "namespace", n.name, "--timeout=5m"); err != nil {
			t.Error(err)
		}
	})
	start := time.Now()
	createUnschedulablePods(t, n, thousandPods)
	t.Logf("%d pods created in %s", thousandPods, time.Since(start).Round(time.Millisecond))
	var took []string
	for range 3 {
		run := runCheck(t, "", "-n", n.name)
		if run.code != 0 {
			t.Fatalf("check over %d pods that run nowhere: exit %d; want 0:\n%s", thousandPods, run.code, run.stdout)
		}
		mustContain(t, "check's report", run.stdout, fmt.Sprintf("(checked %d pods", thousandPods))
		took = append(took, run.took.Round(time.Millisecond).String())
	}
	t.Logf("tandemctl check -n over %d pods, three runs: %s (goal ≤ 5 s)", thousandPods, strings.Join(took, ", "))
}

// createUnschedulablePods creates count pods that no node will run: as
// Lists, a few kubectl create at once (one creates about 30 pods a
// second here, each waiting on its own round trips).
func createUnschedulablePods(t *testing.T, n *namespace, count int) {
	t.Helper()
	const lists = 4
	errs := make([]error, lists)
	var wg sync.WaitGroup
	for l := range lists {
		list := unschedulablePods(t, l*count/lists, (l+1)*count/lists)
		wg.Go(func() {
			ctx, cancel := contextFor(5 * time.Minute)
			defer cancel()
			_, _, errs[l] = n.kubectl().Run(ctx, list, "create", "-f", "-")
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// unschedulablePods is a List of the pods numbered from to to-1.
func unschedulablePods(t *testing.T, from, to int) []byte {
	t.Helper()
	var items []any
	for i := from; i < to; i++ {
		items = append(items, map[string]any{
			"apiVersion": "v1",
			"kind":       "Pod",
			"metadata":   map[string]any{"name": fmt.Sprintf("idle-%04d", i)},
			"spec": map[string]any{
				"nodeSelector":                  map[string]any{"tandem.sh/test-node": "none"},
				"terminationGracePeriodSeconds": 0,
				"containers":                    []any{ctr("idle", "sleep", "3600")},
			},
		})
	}
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return list
}
