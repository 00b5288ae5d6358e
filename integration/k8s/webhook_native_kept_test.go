//go:build k8s

package k8s

import (
	"slices"
	"testing"
	"time"
)

// The webhook's patch keeps what it does not rewrite: a pod with a native
// sidecar of its own (an init container with restartPolicy Always) and a
// classic one named by the annotation is injected in classic mode, and
// the native sidecar, wrapped where it is, keeps its restartPolicy. The kubelet proves it: had
// it become a plain init container, its endless loop would hold the pod
// in Init and the Job would never complete. It runs beside the work, and
// the kubelet stops it once the work and the wrapped proxy have ended.
// Not parallel: the webhook is shared.
func TestWebhookNativeKept(t *testing.T) {
	requireNativeSidecars(t)
	n := admittingNamespace(t)
	// busybox sh as PID 1 ends on SIGTERM only with a trap.
	native := nativeSidecar("shipper", "sh", "-c", `trap "exit 0" TERM; while true; do sleep 1; done`)
	m := ownJob(t, "native-kept", map[string]any{
		"terminationGracePeriodSeconds": 5,
		"imagePullSecrets":              []any{map[string]any{"name": "regcred"}},
		"initContainers":                []any{native},
		"containers":                    []any{ctr("work", "sh", "-c", "echo work done"), registryCtr("proxy", "sleep", "3600")},
	})
	// The test image, in no registry the webhook reads, sets no STOPSIGNAL.
	m.Set(sidecarNamed("tandem.sh/stop-signal.shipper", "TERM"), "spec", "template", "metadata", "annotations")
	n.mustComplete("native-kept", n.applyRaw(m.YAML()), jobBound)

	p := n.onlyPod("native-kept")
	if _, ok := p.Metadata.Annotations["tandem.sh/injected"]; !ok {
		t.Fatalf("pod %s was not injected", p.Metadata.Name)
	}
	initNames := make([]string, 0, len(p.Spec.InitContainers))
	for _, c := range p.Spec.InitContainers {
		initNames = append(initNames, c.Name)
	}
	if !slices.Equal(initNames, []string{"tandem-install", "shipper"}) {
		t.Errorf("init containers %v; want tandem-install, then the pod's own shipper", initNames)
	}
	shipper, _ := p.spec("shipper")
	// A sidecar by its own declaration: wrapped where it is, so its stop
	// after the work is a requested one.
	if shipper.RestartPolicy != "Always" || len(shipper.Command) < 2 || shipper.Command[1] != "sidecar" ||
		!slices.Equal(shipper.Args, native["command"].([]string)) {
		t.Errorf("the native sidecar became %+v; want it under tandem sidecar in place, its program in args, restartPolicy Always", shipper)
	}
	if proxy, _ := p.spec("proxy"); len(proxy.Command) < 2 || proxy.Command[1] != "sidecar" {
		t.Errorf("the proxy runs %q; want it wrapped by tandem sidecar", proxy.Command)
	}
	assertRanBeside(t, p, "shipper", "work")
}

// assertRanBeside: sidecar started before main ended, and ended after it
// (with 0: the trap's exit on the kubelet's SIGTERM).
func assertRanBeside(t *testing.T, p pod, sidecar, main string) {
	t.Helper()
	s, _ := p.container(sidecar)
	m, _ := p.container(main)
	st, mt := s.State.Terminated, m.State.Terminated
	if st == nil || mt == nil {
		t.Fatalf("%s ended %v, %s ended %v; want both ended", sidecar, st != nil, main, mt != nil)
	}
	if mt.ExitCode != 0 || st.ExitCode != 0 || s.RestartCount != 0 {
		t.Errorf("%s exit %d, %s exit %d, restarted %d times; want 0, 0, never", main, mt.ExitCode, sidecar, st.ExitCode, s.RestartCount)
	}
	// The sidecar stops on the main's done file, written milliseconds
	// before the main's container is recorded ended, and the kubelet's
	// times are whole seconds: it may read a second earlier, never more.
	if st.StartedAt.After(mt.FinishedAt) || st.FinishedAt.Before(mt.FinishedAt.Add(-time.Second)) {
		t.Errorf("%s ran %s–%s, %s ended %s; want the sidecar running across the main's end",
			sidecar, st.StartedAt, st.FinishedAt, main, mt.FinishedAt)
	}
	t.Logf("native sidecar %s kept: ran %s → %s, across %s's end at %s", sidecar,
		st.StartedAt.Format("15:04:05"), st.FinishedAt.Format("15:04:05"), main, mt.FinishedAt.Format("15:04:05"))
}
