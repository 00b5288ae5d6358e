//go:build k8s

package k8s

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// watch runs `kubectl get ... -o json --watch` and calls seen with each
// object as it changes, until seen returns true (nil) or bound passes
// (an error): the tests wait on the API's own events, never on sleeps.
func watch[T any](n *namespace, bound time.Duration, seen func(T) bool, what ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	err := watchUntil(ctx, n, seen, what...)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%v: not seen within %s", what, bound)
	}
	return err
}

// watchUntil is watch until ctx is done (an error).
func watchUntil[T any](ctx context.Context, n *namespace, seen func(T) bool, what ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := append([]string{"--namespace", n.name, "get"}, what...)
	cmd := exec.CommandContext(ctx, kubectlBin, append(args, "-o", "json", "--watch")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	dec := json.NewDecoder(stdout)
	for {
		var obj T
		if err := dec.Decode(&obj); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("watch %v: %w", what, err)
		}
		if seen(obj) {
			return nil
		}
	}
}

var errNotEnded = errors.New("not ended")

// waitJob waits until Job name has ended, at most bound, and returns how
// ("Complete" or "Failed") and when this test saw it.
func (n *namespace) waitJob(name string, bound time.Duration) (end string, at time.Time, err error) {
	err = watch(n, bound, func(j job) bool {
		end, at = j.end(), time.Now()
		return end != ""
	}, "job", name)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("job %s: %w: %v", name, errNotEnded, err)
	}
	return end, at, nil
}

// mustComplete fails the test unless Job name completes within bound, and
// returns the time it took from start.
func (n *namespace) mustComplete(name string, start time.Time, bound time.Duration) time.Duration {
	n.t.Helper()
	end, at, err := n.waitJob(name, bound)
	if err != nil {
		n.t.Fatal(err)
	}
	if end != "Complete" {
		n.t.Fatalf("job %s ended %s; want Complete", name, end)
	}
	return at.Sub(start)
}

// waitPod waits until a pod of the selector satisfies ok, at most bound.
func (n *namespace) waitPod(selector string, bound time.Duration, ok func(pod) bool) pod {
	n.t.Helper()
	var found pod
	if err := watch(n, bound, func(p pod) bool { found = p; return ok(p) }, "pods", "-l", selector); err != nil {
		n.t.Fatal(err)
	}
	return found
}

// jobPods lists the pods of Job name, oldest first.
func (n *namespace) jobPods(name string) []pod {
	n.t.Helper()
	out := n.run(nil, "get", "pods", "-l", "job-name="+name, "--sort-by=.metadata.creationTimestamp", "-o", "json")
	list, err := decodeJSON[podList](out)
	if err != nil {
		n.t.Fatalf("pods of job %s: %v", name, err)
	}
	if len(list.Items) == 0 {
		n.t.Fatalf("job %s has no pods", name)
	}
	return list.Items
}

// onlyPod is the pod of a Job that made exactly one.
func (n *namespace) onlyPod(name string) pod {
	n.t.Helper()
	pods := n.jobPods(name)
	if len(pods) != 1 {
		n.t.Fatalf("job %s made %d pods; want 1", name, len(pods))
	}
	return pods[0]
}
