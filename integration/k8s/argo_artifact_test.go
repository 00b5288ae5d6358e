//go:build k8s

package k8s

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// A step's output artifact saved through the mesh proxy: Argo's wait
// container uploads it after the main has ended, to an artifact
// repository reached only through the proxy's outbound route, and the
// repository is slow, so the upload outlasts the main by seconds. The
// proxy must still carry it.

// artifactPutDelay is how long the repository takes to answer an upload.
const artifactPutDelay = 5 * time.Second

// artifactRoute is where the step's containers reach the repository: the
// proxy's outbound route.
const artifactRoute = "127.0.0.1:15001"

// artifactStore runs the repository (standin store, an Artifactory as far
// as Argo's upload goes) in n and the secret Argo's Artifactory driver
// reads, and returns the repository's address.
func (n *namespace) artifactStore() string {
	n.t.Helper()
	n.applyRaw([]byte(`apiVersion: v1
kind: Pod
metadata: {name: artifacts, labels: {app: artifacts}}
spec:
  containers:
    - name: store
      image: ` + testImage + `
      imagePullPolicy: Never
      command: [/usr/local/bin/standin, store, --name, store, --http, ":8080", --put-delay, "` + artifactPutDelay.String() + `"]
      readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Secret
metadata: {name: artifacts}
stringData: {user: argo, password: offline}
`))
	n.run(nil, "wait", "--for=condition=Ready", "pod/artifacts", "--timeout=2m")
	return n.run(nil, "get", "pod", "artifacts", "-o", "jsonpath={.status.podIP}") + ":8080"
}

// artifactStep is the Workflow: its main writes the report, its output
// artifact goes to the repository through the proxy, proxy as the
// template's sidecar (or, native, as its restartable init container).
func artifactStep(t *testing.T, name, store string, native bool) []byte {
	t.Helper()
	proxy := map[string]any{"name": "istio-proxy", "image": fakeIstioProxyImage, "imagePullPolicy": "Never",
		"command": []any{"/usr/local/bin/pilot-agent", "proxy", "sidecar"},
		"env":     []any{map[string]any{"name": "FAKEISTIO_FORWARD", "value": artifactRoute + "=" + store}}}
	script := "echo 'orders: 42' >/tmp/report && echo saved >/tmp/result"
	var tmpl map[string]any
	if native {
		proxy["restartPolicy"] = "Always"
		tmpl = argoTemplate(script, nil, []any{proxy})
	} else {
		tmpl = argoTemplate(script, []any{proxy}, nil)
	}
	outputs := tmpl["outputs"].(map[string]any)
	outputs["artifacts"] = []any{map[string]any{
		"name": "report", "path": "/tmp/report", "archive": map[string]any{"none": map[string]any{}},
		"artifactory": map[string]any{
			"url":            "http://" + artifactRoute + "/repo/" + name + "/report",
			"usernameSecret": map[string]any{"name": "artifacts", "key": "user"},
			"passwordSecret": map[string]any{"name": "artifacts", "key": "password"},
		},
	}}
	return argoWorkflow(t, name, tmpl, nil).YAML()
}

// In either mode: the Workflow Succeeds with its artifact in the
// repository, Argo's wait container (which uploaded it) and the proxy end
// 0, and the proxy's program exits only after wait's. The controls, the
// proxy as a bare classic sidecar and as a bare native one, are measured.
func TestArgoArtifactThroughProxy(t *testing.T) {
	t.Parallel()
	argoInstalled(t)
	if err := fakeIstioImages(); err != nil {
		t.Fatal(err)
	}
	eachMode(t, func(t *testing.T, mode string) {
		n := injectingNamespace(t, mode)
		n.pullSecret()
		n.argoExecutorRole()
		store := n.artifactStore()
		name := "artifact"
		start := n.applyRaw(artifactStep(t, name, store, false))
		w, at := n.waitWorkflow(name, argoBound)
		p := n.podEnded(name, argoBound)
		stored := n.run(nil, "logs", "artifacts", "--timestamps")
		if w.Status.Phase != "Succeeded" || !strings.Contains(stored, "stored /repo/"+name+"/report") {
			t.Errorf("workflow %s: %s (%s); the repository's log:\n%s\nwant Succeeded and the report stored (codes %s)\nwait's log:\n%s\nthe proxy's log:\n%s",
				name, w.Status.Phase, w.Status.Message, stored, codes(p),
				n.run(nil, "logs", p.Metadata.Name, "-c", "wait", "--timestamps"),
				n.run(nil, "logs", p.Metadata.Name, "-c", "istio-proxy", "--timestamps"))
		}
		assertAllZero(t, p)
		logs := n.podLogs(p)
		kit.AssertOrder(t, logs, kit.Tandem("wait", "cmd-exited"), kit.Tandem("istio-proxy", "cmd-exited"))
		t.Logf("%s: artifact through the proxy, repository %s slow: apply → %s in %s; codes %s; tandem's events:\n%s",
			mode, artifactPutDelay, w.Status.Phase, at.Sub(start).Round(100*time.Millisecond), codes(p), tandemEvents(logs))
	})
	for _, native := range []bool{false, true} {
		t.Run(map[bool]string{false: "bare-classic", true: "bare-native"}[native], func(t *testing.T) {
			if native {
				requireNativeSidecars(t)
			}
			argoArtifactControl(t, native)
		})
	}
}

// argoArtifactControl is a control: the same step, no tandem. What it
// ends with is reported, never asserted.
func argoArtifactControl(t *testing.T, native bool) {
	n := newNamespace(t)
	n.argoExecutorRole()
	store := n.artifactStore()
	name := "artifact-bare"
	start := n.applyRaw(artifactStep(t, name, store, native))
	c := n.awaitControl(name)
	stored := strings.Contains(n.run(nil, "logs", "artifacts"), "stored /repo/"+name+"/report")
	t.Logf("control, the proxy bare (native %v), no tandem: %s (%q; step %q) after %s (%v); report stored: %v; pod %s (%v), codes %s",
		native, c.w.Status.Phase, c.w.Status.Message, c.node.Message, c.at.Sub(start).Round(100*time.Millisecond), c.err,
		stored, c.pod.Status.Phase, c.podEnded, codes(c.pod))
}
