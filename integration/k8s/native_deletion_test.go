//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// holdFinalizer keeps a deleted pod's object, so that its phase can be
// read once its containers have ended (Kubernetes' tests do the same).
const holdFinalizer = "tandem.sh/e2e-hold"

// "should mark pod as succeeded if any of the restartable init containers
// have terminated with non-zero exit code" and "... have exceeded its
// termination grace period seconds": a running pod of three sidecars and
// a main, deleted with a 20 s grace period. The main exits first (1 s),
// then the sidecars in reverse order; sidecar-2 exits 1 on SIGTERM
// (nonzero), or would take 30 s (overrun). The pod succeeds either way.
// Each sidecar's share of the period (3.3 s) leaves its program's 1 s to
// exit room on a loaded machine: a nonzero that tandem's --grace cut
// short would play overrun instead.
func TestNativeDeletedPodSucceeds(t *testing.T) {
	t.Parallel()
	variants := map[string]behaviour{
		"nonzero": {forever: true, term: 1, exitCode: 1},
		"overrun": {forever: true, term: 30},
	}
	for variant, second := range variants {
		t.Run(variant, func(t *testing.T) {
			t.Parallel()
			eachMode(t, func(t *testing.T, mode string) {
				sidecars := []part{
					{"sidecar-1", behaviour{forever: true, term: 1}},
					{"sidecar-2", second},
					{"sidecar-3", behaviour{forever: true, term: 1}},
				}
				p, tl, outputs := deleteHeldPod(t, mode, sidecars, 20)
				if p.Status.Phase != "Succeeded" {
					t.Errorf("pod phase %s; want Succeeded", p.Status.Phase)
				}
				assertCodes(t, p, map[string]int{"main": 0, "sidecar-1": 0, "sidecar-3": 0})
				cs, _ := p.container("sidecar-2")
				code, _ := cs.exitCode()
				// What the kubelet reports for sidecar-2, in both modes:
				// tandem's 0 after the requested stop, not its program's
				// 1 (nonzero), nor the 137 of a kill at the grace
				// period's end (overrun: tandem's own --grace kills it
				// first). The bare native sidecar's 1 and 137 are
				// Kubernetes' own (its e2e scenarios, docs/native-sidecars.md).
				if code != 0 {
					t.Errorf("sidecar-2: exit code %d; want 0", code)
				}
				for _, s := range names(sidecars) {
					tl.after(t, "main", "Exiting", s, "Terminating")
				}
				tl.after(t, "sidecar-3", "Exiting", "sidecar-2", "Terminating")
				tl.after(t, "sidecar-2", "Terminating", "sidecar-1", "Terminating")
				tl.has(t, "sidecar-1", "Exiting")
				t.Logf("%s, %s: pod %s, sidecar-2 exit code %d\n%s", mode, variant, p.Status.Phase, code, tl)
				if t.Failed() {
					logEnded(t, p, outputs)
				}
			})
		})
	}
}

// deleteHeldPod runs the sidecars and a looping main (1 s to exit on
// SIGTERM) as a Pod held by holdFinalizer, deletes it once all run, and
// returns it as it ended, with its timeline and each container's output.
func deleteHeldPod(t *testing.T, mode string, sidecars []part, grace int) (pod, timeline, map[string]string) {
	t.Helper()
	n := newNamespace(t)
	spec := lifecycleSpec(behaviour{forever: true, term: 1}, sidecars...)
	spec["terminationGracePeriodSeconds"] = grace
	m := injected(t, unwrappedPod(t, "deleted", sidecarAnnotations(names(sidecars)...), spec), mode)
	m.Set([]string{holdFinalizer}, "metadata", "finalizers")
	n.applyRaw(m.YAML())
	t.Cleanup(func() {
		_, _ = n.try(nil, "patch", "pod", "deleted", "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	})
	all := append(names(sidecars), "main")
	p := n.waitPod("!job-name", 2*time.Minute, func(p pod) bool {
		for _, c := range all {
			if cs, _ := p.container(c); !cs.running() {
				return false
			}
		}
		return true
	})
	ctx, cancel := contextFor(3 * time.Minute)
	defer cancel()
	streams := n.followAll(ctx, p, all...)
	for i, s := range streams {
		if !s.await(kit.Program(all[i], all[i]+" Started"), time.Minute) {
			t.Fatalf("%s never said Started:\n%s", all[i], s.output())
		}
	}
	n.run(nil, "delete", "pod", "deleted", "--wait=false")
	ended := n.waitPod("!job-name", 2*time.Minute, func(p pod) bool {
		return p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed"
	})
	tl := streamsTimeline(t, 30*time.Second, streams)
	outputs := map[string]string{}
	for i, s := range streams {
		outputs[all[i]] = s.output()
	}
	return ended, tl, outputs
}

// logEnded says how each container ended and what it printed, tandem's
// lines included: what a failure on a loaded machine needs to be read.
func logEnded(t *testing.T, p pod, outputs map[string]string) {
	t.Helper()
	for name, out := range outputs {
		cs, _ := p.container(name)
		if end := cs.State.Terminated; end != nil {
			t.Logf("%s: exit code %d, reason %s, %s → %s, message %q", name, end.ExitCode, end.Reason,
				end.StartedAt.Format("15:04:05"), end.FinishedAt.Format("15:04:05"), end.Message)
		} else {
			t.Logf("%s: not terminated (restarts %d)", name, cs.RestartCount)
		}
		t.Logf("%s printed:\n%s", name, out)
	}
}
