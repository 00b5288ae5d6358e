package admission

import (
	"slices"
	"strings"
	"testing"
)

// The webhook takes the tandem.sh/stop-signal annotation as inject does:
// a sidecar with a command and a stated stop signal needs no lookup, and
// no credentials are asked for.
func TestStopSignalAnnotation(t *testing.T) {
	withCommand := strings.Replace(jobPod, `"args":["--port","5432"]`, `"command":["/proxy"]`, 1)
	pod := withAnnotations(withCommand, `"tandem.sh/sidecars":"db-proxy","tandem.sh/stop-signal.db-proxy":"QUIT"`)
	f := newFixture(t, nil)
	_, resp := f.post(t, reviewOf(t, "batch", pod))
	if resp == nil || !resp.Allowed || resp.Patch == nil {
		t.Fatalf("%+v; want allowed with a patch", resp)
	}
	proxy := patched(t, pod, resp).Spec.Containers[0]
	if i := slices.Index(proxy.Command, "--termination-signal"); i < 0 || proxy.Command[i+1] != "QUIT" {
		t.Errorf("sidecar command %q; want --termination-signal QUIT", proxy.Command)
	}
	if len(f.images.keychains) != 0 || len(f.keychains.asked) != 0 {
		t.Errorf("%d lookups, %d keychains; want none", len(f.images.keychains), len(f.keychains.asked))
	}

	// A bad value rejects the pod, naming the annotation, the value and
	// an example.
	bad := withAnnotations(withCommand, `"tandem.sh/sidecars":"db-proxy","tandem.sh/stop-signal.db-proxy":"KILL ME"`)
	_, resp = f.post(t, reviewOf(t, "batch", bad))
	want := `tandem.sh/stop-signal.db-proxy: "KILL ME": expected a signal name or number that tandem can catch, e.g. tandem.sh/stop-signal.db-proxy: QUIT`
	if resp == nil || resp.Allowed || resp.Result == nil || !strings.Contains(resp.Result.Message, want) {
		t.Errorf("allowed %v, %v; want rejected with %q", resp.Allowed, resp.Result, want)
	}
}
