//go:build k8s

package k8s

import (
	"testing"
	"time"
)

// A Job whose istio-proxy (the stand-in, named by its image alone) is
// ready only 6 s after it started, as a proxy that waits for its
// configuration: in either mode the main starts only once the proxy is
// ready. Classic: its preset's readiness is the start hook of a
// container; native: of a native sidecar, whose postStart hook the
// kubelet waits for before it starts the next container. The control,
// the same proxy as a bare native sidecar (no tandem), is measured: the
// kubelet starts the main as soon as the proxy has started.
func TestPresetReadinessHoldsMain(t *testing.T) {
	t.Parallel()
	requireCluster(t)
	if err := fakeIstioImages(); err != nil {
		t.Fatal(err)
	}
	eachMode(t, func(t *testing.T, mode string) {
		n := newNamespace(t)
		// The main runs 5 s: long enough to be seen running.
		spec := lifecycleSpec(behaviour{delay: 5})
		spec["containers"] = append([]any{slowProxy()}, spec["containers"].([]any)...)
		m := injected(t, unwrappedJob(t, "preset-ready", map[string]string{}, spec), mode)
		start := n.applyRaw(m.YAML())
		// The proxy's first run is read while the main runs: the kubelet
		// may start a native sidecar again, more than once, when it exits
		// after the mains (here: tandem's stop on the done file) before it
		// tears the pod down, and only the last two runs' logs are kept.
		running := n.waitPod("job-name=preset-ready", nativeBound, func(p pod) bool {
			main, _ := p.container("main")
			return main.running()
		})
		firstRun := n.run(nil, "logs", running.Metadata.Name, "-c", "istio-proxy")
		took := n.mustComplete("preset-ready", start, nativeBound)
		p := n.onlyPod("preset-ready")
		tl, err := parseTimeline(firstRun, n.run(nil, "logs", p.Metadata.Name, "-c", "main"))
		if err != nil {
			t.Fatal(err)
		}
		tl.after(t, "istio-proxy", "Started", "main", "Starting")
		t.Logf("%s: the main started once the proxy was ready; apply → Complete in %s\n%s", mode, took.Round(100*time.Millisecond), tl)
	})
	t.Run("bare-native", func(t *testing.T) {
		requireNativeSidecars(t)
		t.Parallel()
		n := newNamespace(t)
		spec := lifecycleSpec(behaviour{forever: true})
		proxy := slowProxy()
		proxy["restartPolicy"] = "Always"
		spec["initContainers"] = []any{proxy}
		n.applyRaw(unwrappedPod(t, "bare-ready", map[string]string{}, spec).YAML())
		p := n.waitPod("!job-name", 2*time.Minute, func(p pod) bool {
			s, _ := p.container("istio-proxy")
			main, _ := p.container("main")
			return s.running() && main.running()
		})
		tl := n.podTimeline(p)
		ready, main := tl.index("istio-proxy", "Started", 0), tl.index("main", "Starting", 0)
		t.Logf("control, bare native sidecar: the main started before the proxy was ready: %v\n%s", main >= 0 && (ready < 0 || main < ready), tl)
	})
}

// slowProxy is the istio-proxy stand-in, ready 6 s after it started.
func slowProxy() map[string]any {
	return map[string]any{"name": "istio-proxy", "image": fakeIstioProxyImage, "imagePullPolicy": "Never",
		"command": []string{"/usr/local/bin/pilot-agent", "proxy", "sidecar"},
		"env":     []any{map[string]any{"name": "FAKEISTIO_READY_AFTER", "value": "6s"}}}
}
