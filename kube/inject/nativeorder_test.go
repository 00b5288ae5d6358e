package inject

import (
	"slices"
	"testing"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// argoStepPod is the pod Argo Workflows' emissary executor makes of a
// step with a sidecar: its init container copies argoexec into the
// shared /var/run/argo, which the main and the sidecar run from.
const argoStepPod = `apiVersion: v1
kind: Pod
metadata:
  name: step
  annotations:
    tandem.sh/sidecars: istio-proxy,logs
spec:
  restartPolicy: Never
  initContainers:
    - name: init
      image: app:1
      command: [argoexec, init]
      volumeMounts: [{name: var-run-argo, mountPath: /var/run/argo}]
  containers:
    - name: wait
      image: app:1
      command: [argoexec, wait]
      volumeMounts: [{name: var-run-argo, mountPath: /var/run/argo}]
    - name: main
      image: app:1
      command: [/var/run/argo/argoexec, emissary, --, /app]
      volumeMounts: [{name: var-run-argo, mountPath: /var/run/argo}]
    - name: istio-proxy
      image: proxy:2
      command: [/var/run/argo/argoexec, emissary, --loglevel, info, --, /usr/local/bin/pilot-agent, proxy, sidecar]
      volumeMounts: [{name: var-run-argo, mountPath: /var/run/argo}]
    - name: logs
      image: shipper:1
      command: [/fluent-bit/bin/fluent-bit]
  volumes: [{name: var-run-argo, emptyDir: {}}]
`

// Native mode: a sidecar whose program is on a volume one of the pod's
// init containers mounts starts after that init container, which may be
// what puts the program there (Argo's init copies argoexec); before it,
// the kubelet would start the sidecar on a volume still empty, and hold
// the init container behind its start hook. A sidecar whose program is
// in its image still starts first.
func TestNativeSidecarAfterInitWritingItsProgram(t *testing.T) {
	_, out := injectYAML(t, argoStepPod, testOptionsWith(func(o *Options) { o.Mode = Native }))
	want := []string{"tandem-install", "logs", "init", "istio-proxy"}
	if got := initNames(t, out); !slices.Equal(got, want) {
		t.Errorf("init containers %q; want %q\n%s", got, want, out)
	}
}

// initNames are the names of the injected output's init containers, in
// order.
func initNames(t *testing.T, out string) []string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range contentOf(yamlnode.Path(doc.Content[0], "spec", "initContainers")) {
		names = append(names, yamlnode.ScalarAt(c, "name"))
	}
	return names
}
