//go:build k8s

package k8s

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// What the Argo tests read of a Workflow and make of one.

// argoBound bounds a one-step Workflow from its apply to its end.
const argoBound = 3 * time.Minute

type workflow struct {
	Metadata objectMeta `json:"metadata"`
	Status   struct {
		Phase   string              `json:"phase"`
		Message string              `json:"message"`
		Nodes   map[string]argoNode `json:"nodes"`
	} `json:"status"`
}

type argoNode struct {
	Type    string `json:"type"`
	Phase   string `json:"phase"`
	Message string `json:"message"`
	Outputs struct {
		Parameters []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"parameters"`
		ExitCode string `json:"exitCode"`
	} `json:"outputs"`
}

// pod is the step's node (the one of type Pod).
func (w workflow) pod() (argoNode, bool) {
	for _, node := range w.Status.Nodes {
		if node.Type == "Pod" {
			return node, true
		}
	}
	return argoNode{}, false
}

// parameter is the step's output parameter name, "" when not saved.
func (node argoNode) parameter(name string) string {
	for _, p := range node.Outputs.Parameters {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// waitWorkflow waits until Workflow name has ended (Succeeded, Failed or
// Error), at most bound, and returns it as it ended and when this test
// saw it; the test fails when it has not ended.
func (n *namespace) waitWorkflow(name string, bound time.Duration) (workflow, time.Time) {
	n.t.Helper()
	w, at, err := n.awaitWorkflow(name, bound)
	if err != nil {
		n.t.Fatal(err)
	}
	return w, at
}

// awaitWorkflow is waitWorkflow for a control: its end is reported, not
// asserted.
func (n *namespace) awaitWorkflow(name string, bound time.Duration) (workflow, time.Time, error) {
	var last workflow
	var at time.Time
	err := watch(n, bound, func(w workflow) bool {
		last, at = w, time.Now()
		switch w.Status.Phase {
		case "Succeeded", "Failed", "Error":
			return true
		}
		return false
	}, "workflow", name)
	if err != nil {
		return last, at, fmt.Errorf("workflow %s: phase %q (%s): %w", name, last.Status.Phase, last.Status.Message, err)
	}
	return last, at, nil
}

// podEnded waits until the only pod of Workflow name has ended (every
// container's code is in), at most bound.
func (n *namespace) podEnded(name string, bound time.Duration) pod {
	n.t.Helper()
	return n.waitPod("workflows.argoproj.io/workflow="+name, bound, func(p pod) bool {
		return p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed"
	})
}

// argoExecutorRole lets the namespace's default ServiceAccount, which the
// steps' pods run as, report their outputs: the executor's Role of Argo's
// docs (workflow-rbac), bound to it.
func (n *namespace) argoExecutorRole() {
	n.t.Helper()
	n.applyRaw([]byte(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: argo-executor}
rules:
  - apiGroups: [argoproj.io]
    resources: [workflowtaskresults]
    verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: argo-executor}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: argo-executor}
subjects: [{kind: ServiceAccount, name: default}]
`))
}

// argoStep is a Workflow of one step: the main runs script in the test
// image and saves its output parameter "result" from /tmp/result; the
// template's sidecars and init containers are Argo's own fields.
func argoStep(t *testing.T, name, script string, sidecars, initContainers []any) *kit.Manifest {
	t.Helper()
	return argoWorkflow(t, name, argoTemplate(script, sidecars, initContainers), nil)
}

// argoTemplate is the step's template (see argoStep); a test may add to
// it (its metadata, its own activeDeadlineSeconds) before argoWorkflow.
func argoTemplate(script string, sidecars, initContainers []any) map[string]any {
	tmpl := map[string]any{
		"name": "step",
		"container": map[string]any{"image": testImage, "imagePullPolicy": "Never",
			"command": []any{"sh", "-c", script}},
		"outputs": map[string]any{"parameters": []any{
			map[string]any{"name": "result", "valueFrom": map[string]any{"path": "/tmp/result"}}}},
	}
	if sidecars != nil {
		tmpl["sidecars"] = sidecars
	}
	if initContainers != nil {
		tmpl["initContainers"] = initContainers
	}
	return tmpl
}

// argoWorkflow is Workflow name running tmpl, with spec's fields beside
// its entrypoint.
func argoWorkflow(t *testing.T, name string, tmpl, spec map[string]any) *kit.Manifest {
	t.Helper()
	full := map[string]any{"entrypoint": "step", "templates": []any{tmpl}}
	for k, v := range spec {
		full[k] = v
	}
	return kit.FromObject(t, map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Workflow",
		"metadata":   map[string]any{"name": name},
		"spec":       full,
	})
}

// codes is every container's exit code of p, init containers first, as
// NAME=CODE (NAME=running when it has none).
func codes(p pod) string {
	var out []string
	for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if code, ok := cs.exitCode(); ok {
			out = append(out, fmt.Sprintf("%s=%d", cs.Name, code))
		} else {
			out = append(out, cs.Name+"=running")
		}
	}
	return strings.Join(out, " ")
}

// assertAllZero fails the test unless every container of p ended with 0.
func assertAllZero(t *testing.T, p pod) {
	t.Helper()
	for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if code, ok := cs.exitCode(); !ok || code != 0 {
			t.Errorf("pod %s: container %s ended %v (ended: %v); want 0 (%s)", p.Metadata.Name, cs.Name, code, ok, codes(p))
		}
	}
}

// controlEnd is how a control's Workflow and its step's pod ended, as
// seen within argoBound: reported, never asserted.
type controlEnd struct {
	w        workflow
	at       time.Time
	err      error // the Workflow did not end
	node     argoNode
	pod      pod
	podEnded error // the pod did not end
}

// awaitControl watches control Workflow name and its step's pod to their
// ends, at most argoBound each.
func (n *namespace) awaitControl(name string) controlEnd {
	var c controlEnd
	c.w, c.at, c.err = n.awaitWorkflow(name, argoBound)
	c.node, _ = c.w.pod()
	c.podEnded = watch(n, argoBound, func(seen pod) bool {
		c.pod = seen
		return seen.Status.Phase == "Succeeded" || seen.Status.Phase == "Failed"
	}, "pods", "-l", "workflows.argoproj.io/workflow="+name)
	return c
}
