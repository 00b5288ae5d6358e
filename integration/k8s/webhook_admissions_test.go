//go:build k8s

package k8s

import "testing"

// The pods the webhook's own tests admit, in a namespace of their own.

// admittingNamespace installs the webhook, waits until each of its
// replicas is ready (a test before may have replaced one), and returns a
// namespace it injects in, with the pull secret it reads images with.
func admittingNamespace(t *testing.T) *namespace {
	t.Helper()
	installWebhook(t)
	n := injectingNamespace(t, "classic")
	n.pullSecret()
	return n
}

// sidecarNamed are the annotations of a pod that names its proxy as its
// sidecar, with more (key, value, ...).
func sidecarNamed(more ...string) map[string]any {
	a := map[string]any{"tandem.sh/sidecars": "proxy"}
	for i := 0; i+1 < len(more); i += 2 {
		a[more[i]] = more[i+1]
	}
	return a
}

// idlePod is a pod of a main and its proxy, with annotations (may be
// nil). Each container says its command; the webhook still reads the
// proxy's image for its STOPSIGNAL (a classic sidecar's), from the node's
// registry with the pod's pull secret (installWebhook, pullSecret). It
// asks for a node no node is, so nothing runs: its admission is all that
// matters.
func idlePod(name string, annotations map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata":   meta,
		"spec": map[string]any{
			"nodeSelector":                  map[string]any{"tandem.sh/test-node": "none"},
			"terminationGracePeriodSeconds": 0,
			"imagePullSecrets":              []any{map[string]any{"name": "regcred"}},
			"containers":                    []any{ctr("work", "sh", "-c", "echo work done"), registryCtr("proxy", "sleep", "3600")},
		},
	}
}

// registryCtr is a container of appImage (in the node's registry) running
// command.
func registryCtr(name string, command ...string) map[string]any {
	c := ctr(name, command...)
	c["image"] = appImage
	return c
}
