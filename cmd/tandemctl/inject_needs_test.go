package main

import (
	"strings"
	"testing"
)

// tandem.sh/needs naming a container that is not a sidecar: that resource
// is written unchanged and tandemctl exits 1, naming the annotation and
// the value; the other resources are injected.
func TestInjectNeedsNotASidecar(t *testing.T) {
	broken := strings.Replace(plainJob, "name: export\nspec", "name: broken\nspec", 1)
	broken = strings.Replace(broken, "        tandem.sh/sidecars: db-proxy\n", "        tandem.sh/sidecars: db-proxy\n        tandem.sh/needs: export\n", 1)
	out, stderr, code := run(t, broken+"---\n"+plainJob, "inject", "--resolve", "none", "--image", "ghcr.io/tandem-sh/tandem:v1.0.0")
	if code != 1 {
		t.Errorf("exit %d; want 1", code)
	}
	if !strings.HasPrefix(out, broken+"---\n") || !strings.Contains(out, "tandem.sh/injected") {
		t.Errorf("want the broken Job unchanged and the other injected:\n%s", out)
	}
	want := `job/broken: not injected: tandem.sh/needs: "export" is not a sidecar of this pod (sidecars: db-proxy)`
	if !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "job/export: injected") {
		t.Errorf("report:\n%s\nwant a line starting %q", stderr, want)
	}
}
