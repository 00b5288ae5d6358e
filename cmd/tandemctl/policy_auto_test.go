package main

import (
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/inject"
)

// withPolicyServed makes every API server serve the policy.
func withPolicyServed(t *testing.T) {
	t.Helper()
	saved := servedPolicy
	servedPolicy = func(string) error { return nil }
	t.Cleanup(func() { servedPolicy = saved })
}

// With a kubeconfig, --mode auto and --install auto are settled from the
// cluster's versions as inject settles them, and the policy's annotations
// say what was chosen and why; without one they are refused (exit 2).
func TestPolicyAutoFromCluster(t *testing.T) {
	withPolicyServed(t)
	for _, tt := range []struct {
		cluster     inject.ClusterVersions
		mode        string
		modeReason  string
		nativeWrite bool
	}{
		{newCluster, "auto: native", "the API server (v1.32.2)", true},
		{oldCluster, "auto: classic", "node n2's kubelet is v1.28.4", false},
	} {
		reads := withCluster(t, tt.cluster, nil)
		out, stderr, code := run(t, "", "policy", "--image", "example.com/tandem:v1", "--mode", "auto", "--install", "auto", "--kubeconfig", "/k")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.mode, code, stderr)
		}
		for _, want := range []string{"tandem.sh/mode: '" + tt.mode + "'", "tandem.sh/mode-reason: ", tt.modeReason,
			"tandem.sh/install: 'auto: init-copy'", "tandem.sh/install-reason: "} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the policy lacks %q:\n%s", tt.mode, want, out[:min(len(out), 800)])
			}
		}
		// Only native mode patches in a sidecar's restartPolicy.
		if got := strings.Contains(out, "'/restartPolicy'"); got != tt.nativeWrite {
			t.Errorf("%s: the policy writes native sidecars: %v; want %v", tt.mode, got, tt.nativeWrite)
		}
		if *reads == 0 {
			t.Errorf("%s: the cluster's versions were not read", tt.mode)
		}
	}
	reads := withCluster(t, newCluster, nil)
	out, stderr, code := run(t, "", "policy", "--image", "example.com/tandem:v1", "--mode", "auto")
	if code != 2 || out != "" || !strings.Contains(stderr, "--mode auto: expected classic or native, or auto with --kubeconfig") || *reads != 0 {
		t.Errorf("--mode auto offline: exit %d, stdout %q, stderr %q, %d reads; want exit 2, nothing written or read", code, out, stderr, *reads)
	}
}
