//go:build k8s

package k8s

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The promises of native sidecars, each played by the same pod in both
// modes of `tandemctl inject`: native, where the kubelet keeps it (the
// control), and classic, where tandem must. Scenarios and assertions after
// test/e2e_node/container_lifecycle_test.go (v1.32.2); docs/native-sidecars.md
// has the table.

var modes = []string{"native", "classic"}

// eachMode runs play in a parallel subtest per mode; native only on a
// release that has native sidecars, classic on every one (there it is the
// only way, and tandem alone keeps the promise).
func eachMode(t *testing.T, play func(t *testing.T, mode string)) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			if mode == "native" {
				requireNativeSidecars(t)
			}
			t.Parallel()
			play(t, mode)
		})
	}
}

// "should terminate sidecars in reverse order after all main containers
// have exited": three sidecars, each taking 1 s to exit on SIGTERM; the
// main exits after 2 s. The main exits first, then the last-declared
// sidecar is signalled, and each earlier one only once the later one
// has exited.
func TestNativeReverseStopOrder(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		sidecars := []part{
			{"sidecar-1", behaviour{forever: true, term: 1}},
			{"sidecar-2", behaviour{forever: true, term: 1}},
			{"sidecar-3", behaviour{forever: true, term: 1}},
		}
		n := newNamespace(t)
		m := injected(t, unwrappedJob(t, "serialize-termination", sidecarAnnotations(names(sidecars)...),
			lifecycleSpec(behaviour{delay: 2}, sidecars...)), mode)
		start := n.applyRaw(m.YAML())
		took := n.mustComplete("serialize-termination", start, nativeBound)
		p := n.onlyPod("serialize-termination")
		assertCodes(t, p, map[string]int{"main": 0, "sidecar-1": 0, "sidecar-2": 0, "sidecar-3": 0})
		tl := n.podTimeline(p)
		if mode == "native" {
			// Classic containers start together: their order is the
			// start hooks' (TestNativeStartupProbeOrder).
			tl.startsBefore(t, "sidecar-1", "sidecar-2")
			tl.startsBefore(t, "sidecar-2", "sidecar-3")
			tl.startsBefore(t, "sidecar-3", "main")
		}
		for _, s := range names(sidecars) {
			tl.exitsBefore(t, "main", s)
		}
		tl.exitsBefore(t, "sidecar-3", "sidecar-2")
		tl.exitsBefore(t, "sidecar-2", "sidecar-1")
		// The next is signalled only once the later one has exited.
		tl.after(t, "main", "Exiting", "sidecar-3", "Terminating")
		tl.after(t, "sidecar-3", "Exiting", "sidecar-2", "Terminating")
		tl.after(t, "sidecar-2", "Exiting", "sidecar-1", "Terminating")
		t.Logf("%s: main exited, sidecars stopped 3, 2, 1; apply → Complete in %s\n%s", mode, took.Round(100*time.Millisecond), tl)
	})
}

// "a restartable init container starts and exits with exit code 0 (1)
// continuously", under restartPolicy Never and OnFailure: the sidecar
// exits 1 s after it started, whatever its code, while the main runs for
// 12 s and then until the sidecar has started twice (the kubelet's first
// back-off is 10 s, which a loaded node stretches past the 12 s). It is
// started again after the main started, and the pod succeeds: its exits
// never fail it.
func TestNativeSidecarExitsWhileMainRuns(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"Never", "OnFailure"} {
		for _, code := range []int{0, 1} {
			t.Run(fmt.Sprintf("%s/exit-%d", policy, code), func(t *testing.T) {
				t.Parallel()
				eachMode(t, func(t *testing.T, mode string) { playSidecarExits(t, mode, policy, code) })
			})
		}
	}
}

// sidecarStartedTwice is the main's await: the sidecar's log (which
// outlives its restarts) shows its second start.
const sidecarStartedTwice = `[ "$(grep -c ' sidecar Started$' /persistent/sidecar.log)" -ge 2 ]`

// playSidecarExits plays a bare Pod, as Kubernetes' test does: a Job
// under OnFailure counts every container restart against its
// backoffLimit, a native sidecar's too (see docs/native-sidecars.md).
func playSidecarExits(t *testing.T, mode, policy string, code int) {
	n := newNamespace(t)
	main := behaviour{delay: 12, await: sidecarStartedTwice}
	spec := lifecycleSpec(main, part{"sidecar", behaviour{delay: 1, exitCode: code}})
	spec["restartPolicy"] = policy
	m := injected(t, unwrappedPod(t, "exits-continuously", sidecarAnnotations("sidecar"), spec), mode)
	start := n.applyRaw(m.YAML())
	p := n.waitPod("!job-name", nativeBound, func(p pod) bool {
		return p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed"
	})
	took := time.Since(start)
	if p.Status.Phase != "Succeeded" {
		t.Errorf("pod phase %s; want Succeeded", p.Status.Phase)
	}
	assertCodes(t, p, map[string]int{"main": 0})
	if main, _ := p.container("main"); main.RestartCount != 0 {
		t.Errorf("main: restartCount %d; want 0 (it never failed)", main.RestartCount)
	}
	tl := n.podTimeline(p)
	tl.startsBefore(t, "main", "sidecar")
	tl.has(t, "main", "Exiting")
	if tl.starts("sidecar") < 2 {
		t.Errorf("the sidecar started %d times; want it started again after its exit:\n%s", tl.starts("sidecar"), tl)
	}
	sidecar, _ := p.container("sidecar")
	t.Logf("%s, restartPolicy %s, sidecar exiting %d: started %d times (restartCount %d); apply → Succeeded in %s",
		mode, policy, code, tl.starts("sidecar"), sidecar.RestartCount, took.Round(100*time.Millisecond))
}

// "using a restartable init container in a Pod with restartPolicy=Always;
// a restartable init container runs continuously": the main exits after
// 1 s and the kubelet restarts it; the sidecar is never stopped or
// restarted for it.
func TestNativeRestartAlwaysMainExits(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		spec := lifecycleSpec(behaviour{delay: 1}, part{"sidecar", behaviour{forever: true}})
		spec["restartPolicy"] = "Always"
		m := injected(t, unwrappedPod(t, "run-continuously", sidecarAnnotations("sidecar"), spec), mode)
		n.applyRaw(m.YAML())
		// Two restarts of the main, as Kubernetes' test waits for: the
		// kubelet's back-off (10 s, doubling) and three container starts,
		// which a loaded node stretches.
		p := n.waitPod("!job-name", 4*time.Minute, func(p pod) bool {
			main, _ := p.container("main")
			return main.RestartCount >= 2
		})
		sidecar, _ := p.container("sidecar")
		if sidecar.RestartCount != 0 || !sidecar.running() {
			t.Errorf("sidecar: restartCount %d, running %v; want never restarted, running", sidecar.RestartCount, sidecar.running())
		}
		tl := n.podTimeline(p)
		if got := tl.starts("sidecar"); got != 1 {
			t.Errorf("the sidecar started %d times; want once:\n%s", got, tl)
		}
		if got := tl.starts("main"); got < 3 {
			t.Errorf("the main started %d times; want 3 (two restarts):\n%s", got, tl)
		}
		if i := tl.index("sidecar", "Terminating", 0); i >= 0 {
			t.Errorf("the sidecar was signalled at %s:\n%s", tl[i].At.Format("15:04:05.000"), tl)
		}
		t.Logf("%s: the main ran %d times, the sidecar once, still running", mode, tl.starts("main"))
	})
}

// "should terminate restartable init containers gracefully if there is a
// non-started restartable init container", as it happens to a pod whose
// main never starts (its image is absent: ErrImageNeverPull): deleting
// it takes the sidecar's 1 s of stopping, not the 60 s grace period.
func TestNativeDeleteBeforeMainStarted(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		spec := lifecycleSpec(behaviour{}, part{"sidecar", behaviour{forever: true, term: 1}})
		spec["terminationGracePeriodSeconds"] = 60
		main := spec["containers"].([]any)[1].(map[string]any)
		main["image"] = "localhost/tandem-k8s/absent:never"
		m := injected(t, unwrappedPod(t, "never-started", sidecarAnnotations("sidecar"), spec), mode)
		n.applyRaw(m.YAML())
		p := n.waitPod("!job-name", 2*time.Minute, func(p pod) bool {
			sidecar, _ := p.container("sidecar")
			return sidecar.running() && waitingFor(p, "main") == "ErrImageNeverPull"
		})
		ctx, cancel := contextFor(3 * time.Minute)
		defer cancel()
		out := n.follow(ctx, p.Metadata.Name, "sidecar")
		if !out.await(kit.Program("sidecar", "sidecar Started"), time.Minute) {
			t.Fatalf("the sidecar never said Started:\n%s", out.output())
		}
		start := time.Now()
		n.run(nil, "delete", "pod", p.Metadata.Name, "--wait=false")
		n.run(nil, "wait", "--for=delete", "pod/"+p.Metadata.Name, "--timeout=90s")
		took := time.Since(start)
		out.ended(10 * time.Second)
		tl, err := parseTimeline(out.output())
		if err != nil {
			t.Fatal(err)
		}
		tl.after(t, "sidecar", "Terminating", "sidecar", "Exiting")
		if took > deletedBeforeMainBound {
			t.Errorf("deleting the pod took %s; want the sidecar's own 1 s and the kubelet's work, within %s, well under the 60 s grace", took, deletedBeforeMainBound)
		}
		t.Logf("%s: main never started (ErrImageNeverPull); deletion → pod gone in %s", mode, took.Round(100*time.Millisecond))
	})
}

// deletedBeforeMainBound is how long deleting a pod whose main never
// started may take: the sidecar's 1 s of stopping and the kubelet's and
// the API server's round trips (3 s on an idle node, several times that
// on a loaded one), far from the 60 s grace period a held sidecar uses.
const deletedBeforeMainBound = 40 * time.Second

// waitingFor is why container c of p waits ("" when it does not).
func waitingFor(p pod, c string) string {
	cs, ok := p.container(c)
	if !ok || cs.State.Waiting == nil {
		return ""
	}
	return cs.State.Waiting.Reason
}

// The same sidecar in a Job under restartPolicy OnFailure, backoffLimit
// 0: the Job controller counts every container restart of the pod
// against backoffLimit, a native sidecar's too, so the native Job fails
// at the sidecar's first restart; classic tandem restarts it inside its
// container (restartCount 0), and the Job completes. The main runs 12 s
// and then until the sidecar has started twice, so that the kubelet's
// restart, however late a loaded node makes it, comes while it runs.
func TestNativeSidecarRestartsOnFailureJob(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		main := behaviour{delay: 12, await: sidecarStartedTwice}
		spec := lifecycleSpec(main, part{"sidecar", behaviour{delay: 1}})
		spec["restartPolicy"] = "OnFailure"
		m := injected(t, unwrappedJob(t, "on-failure", sidecarAnnotations("sidecar"), spec), mode)
		start := n.applyRaw(m.YAML())
		end, at, err := n.waitJob("on-failure", nativeBound)
		if err != nil {
			t.Fatal(err)
		}
		want, reason := "Complete", ""
		if mode == "native" {
			want = "Failed"
			reason = n.run(nil, "get", "job", "on-failure", "-o", `jsonpath={.status.conditions[?(@.type=="Failed")].reason}`)
			if reason != "BackoffLimitExceeded" {
				t.Errorf("job failed for %q; want BackoffLimitExceeded", reason)
			}
		}
		if end != want {
			t.Errorf("job ended %s; want %s", end, want)
		}
		if mode == "classic" {
			// The main's wait ends after 60 s without a second start: a
			// classic sidecar that was never restarted fails here.
			p := n.onlyPod("on-failure")
			tl := n.podTimeline(p)
			sidecar, _ := p.container("sidecar")
			if tl.starts("sidecar") < 2 || sidecar.RestartCount != 0 {
				t.Errorf("classic: the sidecar started %d times, restartCount %d; want restarted by tandem inside its container (twice or more, 0):\n%s",
					tl.starts("sidecar"), sidecar.RestartCount, tl)
			}
		}
		t.Logf("%s: OnFailure Job, backoffLimit 0, a sidecar that exits after 1 s: %s %s after the apply", mode, end, at.Sub(start).Round(100*time.Millisecond))
	})
}
