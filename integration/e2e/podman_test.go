//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// playedPod is a pod running under podman, removed when the test ends.
type playedPod struct {
	*pod
	t       *testing.T
	file    string
	started time.Time
}

// play runs p with `podman kube play` and registers its removal. When the
// test fails, every container's log is printed first.
func play(t *testing.T, p *pod) *playedPod {
	t.Helper()
	return playFailingStart(t, p, "")
}

// playFailingStart is play for a pod one of whose containers the runtime
// cannot start (the others run): podman kube play then fails, saying
// startError, as the test expects. "" expects every container to start.
func playFailingStart(t *testing.T, p *pod, startError string) *playedPod {
	t.Helper()
	requirePodman(t)
	p.CheckCommands()
	kit.MarkPlayed(p.Source)
	file := filepath.Join(t.TempDir(), p.name+".yaml")
	if err := os.WriteFile(file, []byte(p.yaml()), 0o644); err != nil {
		t.Fatal(err)
	}
	pp := &playedPod{pod: p, t: t, file: file}
	t.Cleanup(func() {
		// Kill first: the test has read what it needs.
		_, _, _ = podman(context.Background(), "pod", "rm", "--force", "--ignore", "--time", "0", p.name)
		_, _, _ = podman(context.Background(), "kube", "down", file)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("manifest played:\n%s", p.yaml())
			pp.dumpLogs()
		}
	})
	pp.started = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), podmanTimeout)
	defer cancel()
	stdout, stderr, err := podman(ctx, "kube", "play", "--replace", file)
	switch {
	case startError == "" && err != nil:
		t.Fatalf("podman kube play: %v\n%s\nmanifest:\n%s", err, stderr, p.yaml())
	case startError != "" && (err == nil || !strings.Contains(stdout+stderr, startError)):
		t.Fatalf("podman kube play: %v; want a container that cannot start: %q\n%s%s", err, startError, stdout, stderr)
	}
	return pp
}

// playJob plays a Job's pod to its end and checks each container's exit
// code; it returns the pod and its logs for the test's own checks.
func playJob(t *testing.T, p *pod, exitCodes map[string]int) (*playedPod, []kit.Line) {
	t.Helper()
	pp := play(t, p)
	pp.mustEnd(jobBound)
	pp.exitCodes(exitCodes)
	return pp, pp.logs()
}

// podmanTimeout bounds a podman command that should return at once
// (everything but waits), so that a stuck podman fails one test, not the
// whole run at its timeout.
const podmanTimeout = 2 * time.Minute

// podmanTool runs podman; CONTAINERS_CONF is in the environment.
var podmanTool = kit.Tool{Bin: "podman"}

// podman runs one podman command.
func podman(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	return podmanTool.Run(ctx, nil, args...)
}

func (pp *playedPod) ctrName(ctr string) string { return pp.name + "-" + ctr }

// waitExited waits until every listed container exited, for at most bound.
// It returns false when the bound passed first.
// exitedAfterStop bounds the look, once podman pod stop has returned, that
// its containers are exited: they are already, so it bounds only the
// podman CLI's own time, which is seconds on a loaded 2-core machine and
// more while other tests' podman commands hold its locks.
const exitedAfterStop = 30 * time.Second

func (pp *playedPod) waitExited(bound time.Duration, ctrs ...string) bool {
	pp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for _, ctr := range ctrs {
		if _, _, err := podman(ctx, "wait", pp.ctrName(ctr)); err != nil {
			if ctx.Err() != nil {
				return false
			}
			pp.t.Fatalf("wait for %s: %v", ctr, err)
		}
	}
	return true
}

// mustEnd fails the test unless every container of the pod exits within
// bound, and says how long the pod took.
func (pp *playedPod) mustEnd(bound time.Duration) time.Duration {
	pp.t.Helper()
	if !pp.waitExited(bound, pp.ContainerNames()...) {
		pp.t.Fatalf("pod %s did not end within %s", pp.name, bound)
	}
	took := time.Since(pp.started)
	// Podman stops the infra container once the others exited: the pod as
	// a whole is Exited, as a completed Job's pod is Succeeded or Failed.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _, err := podman(context.Background(), "pod", "inspect", pp.name, "--format", "{{.State}}")
		if err == nil && strings.TrimSpace(out) == "Exited" {
			break
		}
		if time.Now().After(deadline) {
			pp.t.Fatalf("every container of pod %s exited, but the pod is %q", pp.name, strings.TrimSpace(out))
		}
	}
	pp.t.Logf("pod %s ended %s after kube play", pp.name, took.Round(time.Millisecond))
	return took
}

// state is what `podman inspect` says about a container.
type state struct {
	Status   string
	ExitCode int
}

func (pp *playedPod) state(ctr string) state {
	pp.t.Helper()
	out, _, err := podman(context.Background(), "inspect", pp.ctrName(ctr), "--format", "{{json .State}}")
	if err != nil {
		pp.t.Fatal(err)
	}
	var st state
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		pp.t.Fatalf("inspect %s: %v\n%s", ctr, err, out)
	}
	return st
}

// exitCodes asserts the exit code of each container
// (`podman inspect NAME-CTR --format '{{.State.ExitCode}}'`).
func (pp *playedPod) exitCodes(want map[string]int) {
	pp.t.Helper()
	for _, ctr := range slices.Sorted(maps.Keys(want)) {
		out, _, err := podman(context.Background(), "inspect", pp.ctrName(ctr), "--format", "{{.State.Status}} {{.State.ExitCode}}")
		if err != nil {
			pp.t.Fatal(err)
		}
		fields := strings.Fields(out)
		if len(fields) != 2 {
			pp.t.Fatalf("inspect %s: %q", ctr, out)
		}
		code, _ := strconv.Atoi(fields[1])
		if fields[0] != "exited" || code != want[ctr] {
			pp.t.Errorf("container %s: %s, exit code %d; want exited, exit code %d", ctr, fields[0], code, want[ctr])
		}
	}
}

// logs returns the output of every container (stdout and stderr), in time
// order.
func (pp *playedPod) logs() []kit.Line {
	pp.t.Helper()
	var all []kit.Line
	for _, ctr := range pp.ContainerNames() {
		lines, err := kit.ContainerLogs(context.Background(), podmanTool, ctr, "logs", "--timestamps", pp.ctrName(ctr))
		if err != nil {
			pp.t.Fatal(err)
		}
		all = append(all, lines...)
	}
	kit.SortByTime(all)
	return all
}

func (pp *playedPod) dumpLogs() {
	pp.t.Logf("logs of pod %s:\n%s", pp.name, kit.Format(pp.logs()))
}
