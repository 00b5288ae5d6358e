//go:build k8s

package k8s

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// Argo Workflows with tandem injected by the webhook: a step whose proxy
// sidecar Argo runs beside its own `wait` container, under Argo's
// emissary executor as shipped.

// argoProxy is a proxy the step's main reaches, named by its image alone
// (its preset).
type argoProxy struct {
	name    string
	image   func() error
	sidecar map[string]any
	port    string
}

func argoProxies() []argoProxy {
	return []argoProxy{
		{name: "istio", image: fakeIstioImages, sidecar: map[string]any{
			"name": "istio-proxy", "image": fakeIstioProxyImage, "imagePullPolicy": "Never",
			"command": []any{"/usr/local/bin/pilot-agent", "proxy", "sidecar"}}, port: "15021"},
		{name: "cloud-sql-proxy", image: cloudSQLProxyBuild, sidecar: map[string]any{
			"name": "cloud-sql-proxy", "image": cloudSQLProxyImage, "imagePullPolicy": "Never",
			"command": []any{"/cloud-sql-proxy"},
			"args":    []any{"--token", "offline", "--port", "5432", "--health-check", "--quitquitquit", "my-project:europe-west1:orders"}},
			port: "5432"},
	}
}

// argoReach is the step's main: it reaches the proxy on port, then saves
// its output parameter.
func argoReach(port string) string {
	return "tandem wait --for tcp:127.0.0.1:" + port + " --timeout 10s && echo step reached the proxy && echo saved >/tmp/result"
}

// In either mode: the Workflow Succeeds, its output parameter saved,
// every container of the step's pod (Argo's init and wait, the main, the
// proxy) ends 0, the proxy wrapped by tandem, and the proxy stops no
// earlier than Argo's wait container, which saved the output. The
// control, the same proxy as a bare native sidecar without tandem, is
// measured.
func TestArgoProxyStepSucceeds(t *testing.T) {
	t.Parallel()
	argoInstalled(t)
	eachMode(t, func(t *testing.T, mode string) {
		for _, proxy := range argoProxies() {
			t.Run(proxy.name, func(t *testing.T) { argoProxyStep(t, mode, proxy) })
		}
	})
	for _, proxy := range argoProxies() {
		t.Run("bare-native/"+proxy.name, func(t *testing.T) { argoBareNative(t, proxy) })
	}
}

// argoProxyStep plays one step with proxy, injected by the webhook of
// mode.
func argoProxyStep(t *testing.T, mode string, proxy argoProxy) {
	n := injectingNamespace(t, mode)
	n.pullSecret()
	if err := proxy.image(); err != nil {
		t.Fatal(err)
	}
	n.argoExecutorRole()
	name := "step-" + proxy.name
	start := n.applyRaw(argoStep(t, name, argoReach(proxy.port), []any{proxy.sidecar}, nil).YAML())
	w, at := n.waitWorkflow(name, argoBound)
	p := n.podEnded(name, argoBound)
	node, _ := w.pod()
	if w.Status.Phase != "Succeeded" || node.parameter("result") != "saved" {
		t.Errorf("workflow %s: %s (%s), output result %q; want Succeeded, %q (codes %s)",
			name, w.Status.Phase, w.Status.Message, node.parameter("result"), "saved", codes(p))
	}
	assertAllZero(t, p)
	sidecar := proxy.sidecar["name"].(string)
	if spec, _ := p.spec(sidecar); !strings.Contains(strings.Join(spec.Command, " "), "tandem sidecar") {
		t.Errorf("%s's command %v: not wrapped by tandem sidecar", sidecar, spec.Command)
	}
	wait, _ := p.container("wait")
	proxyEnd, _ := p.container(sidecar)
	if wait.State.Terminated == nil || proxyEnd.State.Terminated == nil ||
		proxyEnd.State.Terminated.FinishedAt.Before(wait.State.Terminated.FinishedAt) {
		t.Errorf("%s ended before Argo's wait: %+v vs %+v", sidecar, proxyEnd.State.Terminated, wait.State.Terminated)
	} else {
		t.Logf("finishedAt (whole seconds): wait %s, %s %s", wait.State.Terminated.FinishedAt.Format(time.TimeOnly),
			sidecar, proxyEnd.State.Terminated.FinishedAt.Format(time.TimeOnly))
	}
	// The proxy's program (under Argo's emissary) exited after Argo's wait
	// had: finer than the containers' finishedAt, in whole seconds.
	logs := n.podLogs(p)
	kit.AssertOrder(t, logs, kit.Tandem("wait", "cmd-exited"), kit.Tandem(sidecar, "cmd-exited"))
	t.Logf("%s, %s, injected: apply → Succeeded in %s; codes %s; tandem's events:\n%s", proxy.name, mode,
		at.Sub(start).Round(100*time.Millisecond), codes(p), tandemEvents(logs))
}

// tandemEvents lists tandem's events in logs, in time order, one a line.
func tandemEvents(logs []kit.Line) string {
	var b strings.Builder
	for _, l := range logs {
		if l.Fields != nil && l.Field("event") != "" {
			fmt.Fprintf(&b, "%s %-16s %s %s\n", l.At.Format("15:04:05.000"), l.Ctr, l.Field("event"), l.Field("signal"))
		}
	}
	return b.String()
}

// argoBareNative is the control: the step with proxy as a bare native
// sidecar (an init container of the template with restartPolicy: Always),
// no tandem. What it ends with is reported, never asserted.
func argoBareNative(t *testing.T, proxy argoProxy) {
	requireNativeSidecars(t)
	n := newNamespace(t)
	if err := proxy.image(); err != nil {
		t.Fatal(err)
	}
	n.argoExecutorRole()
	native := map[string]any{"restartPolicy": "Always"}
	for k, v := range proxy.sidecar {
		native[k] = v
	}
	name := "bare-" + proxy.name
	start := n.applyRaw(argoStep(t, name, argoReach(proxy.port), nil, []any{native}).YAML())
	c := n.awaitControl(name)
	t.Logf("control, %s as a bare native sidecar, no tandem: %s (%q; node %q) after %s (%v); output result %q; pod %s (%v), codes %s",
		proxy.name, c.w.Status.Phase, c.w.Status.Message, c.node.Message, c.at.Sub(start).Round(100*time.Millisecond), c.err,
		c.node.parameter("result"), c.pod.Status.Phase, c.podEnded, codes(c.pod))
}
