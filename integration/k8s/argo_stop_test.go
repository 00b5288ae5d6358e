//go:build k8s

package k8s

import (
	"strings"
	"testing"
	"time"
)

// A step that does not end well under Argo Workflows, with tandem injected
// by the webhook: a proxy that crash-loops, a Workflow past its deadline,
// a Workflow deleted while its step runs.

// argoGrace is the step pod's grace period (Kubernetes' default: Argo
// sets none).
const argoGrace = 30 * time.Second

// A step whose needed proxy crash-loops fails in seconds: tandem's restart
// budget (3, a needed sidecar's default) runs out, the mains are stopped
// (sidecar-lost) and Argo calls the Workflow Failed. The annotations are
// the template's, which Argo copies onto the step's pod.
func TestArgoCrashLoopingProxyFailsStep(t *testing.T) {
	t.Parallel()
	argoInstalled(t)
	eachMode(t, func(t *testing.T, mode string) {
		n := injectingNamespace(t, mode)
		n.argoExecutorRole()
		proxy := map[string]any{"name": "proxy", "image": testImage, "imagePullPolicy": "Never",
			"command": []any{"sh", "-c", `echo "proxy: cannot start"; exit 1`}}
		tmpl := argoTemplate("sleep 600", []any{proxy}, nil)
		tmpl["metadata"] = map[string]any{"annotations": map[string]any{
			"tandem.sh/sidecars": "proxy", "tandem.sh/needs": "proxy", "tandem.sh/stop-signal.proxy": "TERM"}}
		name := "crashing-proxy"
		start := n.applyRaw(argoWorkflow(t, name, tmpl, nil).YAML())
		w, at := n.waitWorkflow(name, argoBound)
		p := n.podEnded(name, argoBound)
		node, _ := w.pod()
		if w.Status.Phase != "Failed" {
			t.Errorf("workflow %s: %s (%s); want Failed (codes %s)", name, w.Status.Phase, w.Status.Message, codes(p))
		}
		main, _ := p.container("main")
		msg := ""
		if main.State.Terminated != nil {
			msg = main.State.Terminated.Message
		}
		if !strings.Contains(msg, "sidecar-lost") || !strings.Contains(msg, "proxy") {
			t.Errorf("the main's termination message %q; want sidecar-lost, naming proxy (codes %s)", msg, codes(p))
		}
		t.Logf("%s: a needed proxy that always crashes: apply → %s in %s; Argo's step message %q, workflow message %q; codes %s",
			mode, w.Status.Phase, at.Sub(start).Round(100*time.Millisecond), node.Message, w.Status.Message, codes(p))
	})
}

// argoRunningStep applies a one-step Workflow whose main reaches the
// istio stand-in and then runs until stopped, and returns its pod once
// the main has reached the proxy.
func argoRunningStep(t *testing.T, mode, name string) (*namespace, pod) {
	t.Helper()
	n := injectingNamespace(t, mode)
	n.pullSecret()
	proxy := argoProxies()[0]
	if err := proxy.image(); err != nil {
		t.Fatal(err)
	}
	n.argoExecutorRole()
	script := argoReach(proxy.port) + " && touch /tmp/reached && exec sleep 600"
	n.applyRaw(argoWorkflow(t, name, argoTemplate(script, []any{proxy.sidecar}, nil), nil).YAML())
	p := n.waitPod("workflows.argoproj.io/workflow="+name, argoBound, func(p pod) bool {
		main, _ := p.container("main")
		return main.running()
	})
	n.run(nil, "exec", p.Metadata.Name, "-c", "main", "--", "sh", "-c",
		"i=0; until [ -e /tmp/reached ] || [ $i -ge 60 ]; do sleep 1; i=$((i+1)); done; test -e /tmp/reached")
	return n, p
}

// assertStoppedCleanly fails unless the proxy ended 0 and no container
// was killed (137) in d: a proxy held past the pod's grace would be, by
// the kubelet or by Argo's own SIGKILL a grace period after its SIGTERM.
func assertStoppedCleanly(t *testing.T, d deleted) {
	t.Helper()
	for _, cs := range append(d.last.Status.InitContainerStatuses, d.last.Status.ContainerStatuses...) {
		code, ok := cs.exitCode()
		if !ok || code == 137 {
			t.Errorf("container %s ended %d (ended: %v); want no SIGKILL (codes %s)", cs.Name, code, ok, codes(d.last))
		}
		if cs.Name == "istio-proxy" && code != 0 {
			t.Errorf("istio-proxy ended %d; want 0, its requested stop (codes %s)", code, codes(d.last))
		}
	}
}

// A Workflow past its deadline while its step runs (activeDeadlineSeconds
// set on the running Workflow, so the step has started first): Argo's
// controller stops the step (its SIGTERM to each container, SIGKILL a
// grace period later), none killed, the proxy 0, and the Workflow Failed.
// The time from the patch is reported: most of it is the controller's.
func TestArgoDeadlineStopsStep(t *testing.T) {
	t.Parallel()
	argoInstalled(t)
	eachMode(t, func(t *testing.T, mode string) {
		name := "deadline"
		n, p := argoRunningStep(t, mode, name)
		d := n.deleteWatched(p.Metadata.Name, argoGrace+time.Minute, func() {
			n.run(nil, "patch", "workflow", name, "--type", "merge", "-p", `{"spec":{"activeDeadlineSeconds":1}}`)
		})
		assertStoppedCleanly(t, d)
		w, _ := n.waitWorkflow(name, argoBound)
		if w.Status.Phase != "Failed" {
			t.Errorf("workflow %s: %s (%s); want Failed", name, w.Status.Phase, w.Status.Message)
		}
		node, _ := w.pod()
		t.Logf("%s: deadline → every container ended in %s; workflow %s (%q), step %q; codes %s",
			mode, d.took.Round(100*time.Millisecond), w.Status.Phase, w.Status.Message, node.Message, codes(d.last))
	})
}

// A Workflow deleted while its step runs: the step's pod goes with it
// (its owner), every container ends within the pod's grace, none killed,
// the proxy 0.
func TestArgoWorkflowDeletedWhileStepRuns(t *testing.T) {
	t.Parallel()
	argoInstalled(t)
	eachMode(t, func(t *testing.T, mode string) {
		name := "deleted"
		n, p := argoRunningStep(t, mode, name)
		d := n.deleteWatched(p.Metadata.Name, argoGrace+time.Minute, func() {
			n.run(nil, "delete", "workflow", name, "--wait=false")
		})
		assertStoppedCleanly(t, d)
		if d.took > argoGrace {
			t.Errorf("the step's containers ended %s after the deletion; want within the pod's grace (%s)", d.took.Round(100*time.Millisecond), argoGrace)
		}
		t.Logf("%s: workflow deleted → every container ended in %s; codes %s", mode, d.took.Round(100*time.Millisecond), codes(d.last))
	})
}
