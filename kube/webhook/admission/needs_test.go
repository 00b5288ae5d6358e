package admission

import (
	"strings"
	"testing"
)

// The webhook wires tandem.sh/needs as inject does: the main needs the
// proxy's ready file, which the proxy writes and holds a lifeline for.
func TestNeedsInjected(t *testing.T) {
	pod := withAnnotations(jobPod, `"tandem.sh/sidecars":"db-proxy","tandem.sh/needs":"db-proxy"`)
	f := newFixture(t, nil)
	_, resp := f.post(t, reviewOf(t, "batch", pod))
	if !resp.Allowed {
		t.Fatalf("%+v; want allowed", resp.Result)
	}
	got := patched(t, pod, resp)
	proxy, main := got.Spec.Containers[0], got.Spec.Containers[1]
	if !strings.Contains(strings.Join(proxy.Command, " "), "--ready-file /run/tandem/db-proxy.ready") {
		t.Errorf("sidecar command %q; want --ready-file /run/tandem/db-proxy.ready", proxy.Command)
	}
	if !strings.Contains(strings.Join(main.Command, " "), "--needs /run/tandem/db-proxy.ready --") {
		t.Errorf("main command %q; want --needs /run/tandem/db-proxy.ready", main.Command)
	}
}

// A name in tandem.sh/needs that is not a sidecar: the pod is rejected
// with inject's message, which names the annotation and the value.
func TestNeedsNotASidecarRejected(t *testing.T) {
	pod := withAnnotations(jobPod, `"tandem.sh/sidecars":"db-proxy","tandem.sh/needs":"db-prxy"`)
	f := newFixture(t, nil)
	_, resp := f.post(t, reviewOf(t, "batch", pod))
	want := `tandem.sh/needs: "db-prxy" is not a sidecar of this pod (sidecars: db-proxy)`
	if resp.Allowed || resp.Result == nil || !strings.Contains(resp.Result.Message, want) {
		t.Fatalf("%+v; want a refusal with %q", resp.Result, want)
	}
	if l := f.logLines(t); len(l) != 1 || l[0]["decision"] != Rejected {
		t.Errorf("log %v; want one line, decision rejected", l)
	}
}
