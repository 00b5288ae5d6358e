//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// What the real-program tests read of running containers, and how they wait
// for it: podman announces nothing, so logs and states are read again and
// again.

// signal sends sig to each container that still runs.
func (pp *playedPod) signal(sig string, ctrs ...string) {
	pp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), podmanTimeout)
	defer cancel()
	for _, ctr := range ctrs {
		if _, _, err := podman(ctx, "kill", "--signal", sig, pp.ctrName(ctr)); err != nil && pp.state(ctr).Status == "running" {
			pp.t.Fatal(err)
		}
	}
}

// ctrLogs returns what one container wrote so far, stdout and stderr.
func (pp *playedPod) ctrLogs(ctr string) []kit.Line {
	pp.t.Helper()
	lines, err := kit.ContainerLogs(context.Background(), podmanTool, ctr, "logs", "--timestamps", pp.ctrName(ctr))
	if err != nil {
		pp.t.Fatal(err)
	}
	return lines
}

// waitStep waits until s happened, for at most bound.
func (pp *playedPod) waitStep(s kit.Event, bound time.Duration) kit.Line {
	pp.t.Helper()
	var found kit.Line
	pp.waitUntil(bound, s.String(), func() bool {
		l, ok := kit.Find(pp.ctrLogs(s.Ctr), s)
		found = l
		return ok
	})
	return found
}

// waitUntil polls cond until it holds, for at most bound: the logs and the
// states of containers announce nothing, so they are read again and again.
func (pp *playedPod) waitUntil(bound time.Duration, what string, cond func() bool) {
	pp.t.Helper()
	for deadline := time.Now().Add(bound); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			pp.t.Fatalf("no %s within %s", what, bound)
		}
	}
}

// finishedAt is when the container's process ended, as podman recorded it.
func (pp *playedPod) finishedAt(ctr string) time.Time {
	pp.t.Helper()
	out, _, err := podman(context.Background(), "inspect", pp.ctrName(ctr), "--format", "{{json .State.FinishedAt}}")
	if err != nil {
		pp.t.Fatal(err)
	}
	var at time.Time
	if err := json.Unmarshal([]byte(out), &at); err != nil {
		pp.t.Fatalf("inspect %s: FinishedAt %q: %v", ctr, out, err)
	}
	return at
}
