//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// "should launch restartable init containers serially considering the
// startup probe": two sidecars that take 3 s to start, each with a
// startupProbe on the file it makes when started. Native, the kubelet
// starts the next container once the probe passed; classic, inject's
// postStart hook (tandem wait on the probe's condition) holds it.
func TestNativeStartupProbeOrder(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		spec := lifecycleSpec(behaviour{delay: 1},
			part{"sidecar-1", behaviour{startDelay: 3, forever: true}},
			part{"sidecar-2", behaviour{startDelay: 3, forever: true}})
		// A loaded node's exec can outlast the default 1 s timeout, a
		// failure: 30 of them would restart the sidecar.
		probe := map[string]any{"exec": map[string]any{"command": []string{"test", "-f", "/tmp/started"}},
			"periodSeconds": 1, "failureThreshold": 30, "timeoutSeconds": probeExecTimeout}
		for _, c := range spec["containers"].([]any)[:2] {
			c.(map[string]any)["startupProbe"] = probe
		}
		m := injected(t, unwrappedJob(t, "start-serially", sidecarAnnotations("sidecar-1", "sidecar-2"), spec), mode)
		start := n.applyRaw(m.YAML())
		took := n.mustComplete("start-serially", start, nativeBound)
		tl := n.podTimeline(n.onlyPod("start-serially"))
		tl.startsBefore(t, "sidecar-1", "sidecar-2")
		tl.startsBefore(t, "sidecar-2", "main")
		tl.has(t, "main", "Exiting")
		t.Logf("%s: sidecar-1 started, then sidecar-2, then the main; apply → Complete in %s\n%s", mode, took.Round(100*time.Millisecond), tl)
	})
}

// hookedSidecar is a sidecar whose postStart and preStop exec hooks log
// PostStart and PreStop to its output (the container's PID 1's stdout,
// as Kubernetes' tests write).
func hookedSidecar(spec map[string]any) {
	sidecar := spec["containers"].([]any)[0].(map[string]any)
	hook := func(word string) map[string]any {
		return map[string]any{"exec": map[string]any{"command": []string{"sh", "-c",
			`echo "$(standin now) sidecar ` + word + `" >/proc/1/fd/1`}}}
	}
	sidecar["lifecycle"] = map[string]any{"postStart": hook("PostStart"), "preStop": hook("PreStop")}
}

// lifecycle_hook.go's "Restartable Init Container Lifecycle Hook":
// "should execute poststart exec hook properly" and "should execute
// prestop exec hook properly": the pod is deleted once it runs. Both
// hooks run in both modes: postStart while the sidecar runs, preStop
// before its SIGTERM.
func TestNativeSidecarHooksOnDeletion(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		spec := lifecycleSpec(behaviour{forever: true, term: 1}, part{"sidecar", behaviour{forever: true, term: 1}})
		hookedSidecar(spec)
		m := injected(t, unwrappedPod(t, "hooks", sidecarAnnotations("sidecar"), spec), mode)
		n.applyRaw(m.YAML())
		p := n.waitPod("!job-name", 2*time.Minute, func(p pod) bool {
			s, _ := p.container("sidecar")
			main, _ := p.container("main")
			return s.running() && main.running()
		})
		ctx, cancel := contextFor(3 * time.Minute)
		defer cancel()
		streams := n.followAll(ctx, p, "sidecar", "main")
		if !streams[0].await(kit.Program("sidecar", "sidecar PostStart"), time.Minute) {
			t.Fatalf("no PostStart from the sidecar's hook:\n%s", streams[0].output())
		}
		n.run(nil, "delete", "pod", "hooks", "--wait=false")
		tl := streamsTimeline(t, 90*time.Second, streams)
		// The kubelet runs postStart once the container started, with no
		// order against its command's first line (seen 180 ms before it
		// natively, 40 ms in classic mode, where tandem starts the
		// command): Kubernetes' own test asserts only that both run
		// together.
		tl.has(t, "sidecar", "Starting")
		tl.after(t, "sidecar", "PostStart", "sidecar", "Terminating")
		tl.after(t, "sidecar", "PreStop", "sidecar", "Terminating")
		tl.has(t, "sidecar", "Exiting")
		t.Logf("%s: postStart ran while the sidecar ran, preStop before its SIGTERM\n%s", mode, tl)
	})
}

// On completion, native: the kubelet stops the sidecar after the main
// exited, preStop hook first. Classic: tandem stops it; the kubelet,
// which stops nothing, runs no preStop hook (docs/native-sidecars.md).
func TestNativeSidecarPreStopOnCompletion(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		spec := lifecycleSpec(behaviour{delay: 2}, part{"sidecar", behaviour{forever: true, term: 1}})
		hookedSidecar(spec)
		m := injected(t, unwrappedJob(t, "prestop", sidecarAnnotations("sidecar"), spec), mode)
		start := n.applyRaw(m.YAML())
		n.mustComplete("prestop", start, nativeBound)
		tl := n.podTimeline(n.onlyPod("prestop"))
		tl.after(t, "main", "Exiting", "sidecar", "Terminating")
		tl.has(t, "sidecar", "Exiting")
		if mode == "native" {
			tl.after(t, "main", "Exiting", "sidecar", "PreStop")
			tl.after(t, "sidecar", "PreStop", "sidecar", "Terminating")
		} else if i := tl.index("sidecar", "PreStop", 0); i >= 0 {
			t.Errorf("classic: a preStop hook ran at %s on completion; the kubelet stops no container then:\n%s", tl[i].At.Format("15:04:05.000"), tl)
		}
		t.Logf("%s: on completion\n%s", mode, tl)
	})
}
