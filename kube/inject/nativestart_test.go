package inject

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/presets"
	"go.yaml.in/yaml/v3"
)

// In native mode a sidecar with a known readiness holds the next
// containers until it is ready, as its start hook does in classic mode:
// its readinessProbe, else its preset's readiness, becomes the postStart
// hook `tandem wait`, which checks from inside the pod (the kubelet starts
// the next init container once it returned); a gRPC readinessProbe, which
// tandem cannot check, becomes its startupProbe. A startupProbe
// the pod states is kept as it is; a sidecar the pod declares native
// keeps the start the pod gave it.
func TestNativeHoldsNextStart(t *testing.T) {
	const mains = "  containers:\n    - name: main\n      image: app:1\n      command: [/app]\n"
	moved := func(image, fields string) string {
		return mains + "    - name: side\n      image: " + image + "\n      command: [/side]\n" + fields
	}
	for _, tt := range []struct {
		name, spec string
		startup    string   // the startupProbe written, as flow YAML; "" for none
		hook       []string // the postStart command written, nil for none
		warning    string
	}{
		{"readinessProbe: checked from inside the pod, as in classic mode",
			moved("app:1", "      readinessProbe:\n        tcpSocket: {port: 5432}\n        periodSeconds: 2\n        successThreshold: 2\n        failureThreshold: 30\n"),
			"", []string{binary, "wait", "--for", "tcp:127.0.0.1:5432", "--timeout", "60s"}, ""},
		{"a grpc readinessProbe becomes the startupProbe, successThreshold left at 1",
			moved("app:1", "      readinessProbe:\n        grpc: {port: 9000}\n        successThreshold: 2\n"),
			"{grpc: {port: 9000}}", nil, ""},
		{"a grpc readinessProbe, which a start hook cannot check",
			moved("app:1", "      readinessProbe:\n        grpc: {port: 9000}\n"),
			"{grpc: {port: 9000}}", nil, ""},
		{"its own startupProbe is kept",
			moved("app:1", "      readinessProbe:\n        tcpSocket: {port: 1}\n      startupProbe:\n        tcpSocket: {port: 2}\n"),
			"{tcpSocket: {port: 2}}", nil, ""},
		{"istio-proxy's preset readiness",
			moved("docker.io/istio/proxyv2:1.27.0", ""),
			"", []string{binary, "wait", "--for", "http://127.0.0.1:15020/healthz/ready", "--timeout", "60s"}, ""},
		{"alloy's preset readiness, on the port its flag sets",
			"  terminationGracePeriodSeconds: 200\n" + strings.Replace(moved("grafana/alloy:1.18.1", ""), "command: [/side]", "command: [/bin/alloy, run, --server.http.listen-addr=127.0.0.1:9999, /etc/alloy/config.alloy]", 1),
			"", []string{binary, "wait", "--for", "http://127.0.0.1:9999/-/ready", "--timeout", "60s"}, ""},
		{"a preset's readiness with a postStart hook of its own",
			moved("docker.io/istio/proxyv2:1.27.0", "      lifecycle:\n        postStart:\n          exec:\n            command: [/warm-up]\n"),
			"", []string{"/warm-up"}, `sidecar "side" keeps its own postStart hook, so the mains may start before it is ready`},
		{"no readiness known", moved("app:1", ""), "", nil, ""},
		{"declared native: kept as the pod gave it",
			"  initContainers:\n    - name: side\n      image: app:1\n      restartPolicy: Always\n      command: [/side]\n" +
				"      readinessProbe:\n        tcpSocket: {port: 5432}\n" + mains,
			"", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptionsWith(func(o *Options) { o.Mode, o.Presets = Native, presets.Builtin() })
			r, out := injectYAML(t, pod(tt.spec), opts)
			if r.Status != Injected {
				t.Fatalf("%s", r)
			}
			if got := flowOf(t, out, "side", "startupProbe"); got != tt.startup {
				t.Errorf("startupProbe %s; want %s\n%s", got, tt.startup, out)
			}
			if got := listOf(t, out, "side", "lifecycle", "postStart", "exec", "command"); !slices.Equal(got, tt.hook) {
				t.Errorf("postStart %q; want %q", got, tt.hook)
			}
			if tt.warning == "" && len(r.Warnings) > 0 || tt.warning != "" && !strings.Contains(r.String(), tt.warning) {
				t.Errorf("report %q; want warning %q", r, tt.warning)
			}
		})
	}
	// A needed sidecar holds the mains through their --needs, which see it
	// lost when it crash-loops: no hold at the kubelet, which would keep
	// the pod in Init for ever.
	needed := withAnnotation(moved("app:1", "      readinessProbe:\n        tcpSocket: {port: 5432}\n"), NeedsKey, "side")
	if _, out := injectYAML(t, needed, testOptionsWith(func(o *Options) { o.Mode = Native })); flowOf(t, out, "side", "startupProbe") != "" ||
		listOf(t, out, "side", "lifecycle", "postStart", "exec", "command") != nil {
		t.Errorf("a needed sidecar is held at the kubelet too:\n%s", out)
	}
	// Written where a reader looks for it: right after the readiness probe.
	_, out := injectYAML(t, pod(moved("app:1", "      readinessProbe:\n        grpc:\n          port: 9000\n      resources: {}\n")),
		testOptionsWith(func(o *Options) { o.Mode = Native }))
	want := "      readinessProbe:\n        grpc:\n          port: 9000\n      startupProbe:\n        grpc:\n          port: 9000\n      resources: {}\n"
	if !strings.Contains(out, want) {
		t.Errorf("want the startupProbe after the readinessProbe:\n%s", out)
	}
}

// flowOf is the node at keys below container name of the injected output,
// written as one line of flow YAML; "" when there is none.
func flowOf(t *testing.T, out, name string, keys ...string) string {
	t.Helper()
	n := yamlnode.Path(containerOf(t, out, name), keys...)
	if n == nil {
		return ""
	}
	setFlow(n)
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c)
	}
}
