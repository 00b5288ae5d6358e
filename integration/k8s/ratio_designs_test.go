//go:build k8s && k8sbench

package k8s

import (
	"slices"
	"testing"

	"sigs.k8s.io/yaml"
)

// installDesign is a way of copying tandem into the pod tried beside
// init-copy: apply rewrites the init-copy injection of a pod into it.
type installDesign struct {
	name  string
	modes []string
	apply func(t *testing.T, injected []byte) []byte
}

// installDesigns are the designs TestRatioStartByInstall plays, each in
// both modes.
var installDesigns = []installDesign{
	{name: "restartable-install", modes: []string{"classic", "native"}, apply: restartableInstall},
	{name: "install-container", modes: []string{"classic"}, apply: installContainer},
}

func designNamed(name string) (installDesign, bool) {
	i := slices.IndexFunc(installDesigns, func(d installDesign) bool { return d.name == name })
	if i < 0 {
		return installDesign{}, false
	}
	return installDesigns[i], true
}

// restartableInstall makes tandem-install a native sidecar that copies in
// its postStart hook and then idles: the kubelet starts the next container
// once the hook has returned, as it does after an init container's exit,
// but it asks the runtime again at once after a sync that started
// something (1.36+), where an exit is only seen at its next periodic
// relist.
func restartableInstall(t *testing.T, injected []byte) []byte {
	return rewriteInstall(t, injected, func(install map[string]any) {
		install["restartPolicy"] = "Always"
		install["lifecycle"] = map[string]any{"postStart": map[string]any{"exec": map[string]any{"command": install["command"]}}}
		install["command"] = []any{"/tandem", "wait", "--for", "file:/run/tandem/.never", "--timeout", "0"}
	})
}

// installContainer makes tandem-install the first of the pod's containers
// (classic mode), which copies in its postStart hook and then waits for the
// main's done file: the kubelet starts a pod's containers in one pass, in
// order, each once the previous one's postStart hook has returned, so the
// copy costs no pass of its own.
func installContainer(t *testing.T, injected []byte) []byte {
	t.Helper()
	var install map[string]any
	out := rewriteInstall(t, injected, func(c map[string]any) {
		c["lifecycle"] = map[string]any{"postStart": map[string]any{"exec": map[string]any{"command": c["command"]}}}
		c["command"] = []any{"/tandem", "wait", "--for", "file:/run/tandem/main.done", "--timeout", "0"}
		install = c
	})
	var p map[string]any
	if err := yaml.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	spec := p["spec"].(map[string]any)
	inits := slices.DeleteFunc(spec["initContainers"].([]any), func(c any) bool { return c.(map[string]any)["name"] == "tandem-install" })
	if len(inits) == 0 {
		delete(spec, "initContainers")
	} else {
		spec["initContainers"] = inits
	}
	spec["containers"] = append([]any{install}, spec["containers"].([]any)...)
	out, err := yaml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rewriteInstall applies edit to the tandem-install init container of the
// injected pod.
func rewriteInstall(t *testing.T, injected []byte, edit func(install map[string]any)) []byte {
	t.Helper()
	var p map[string]any
	if err := yaml.Unmarshal(injected, &p); err != nil {
		t.Fatal(err)
	}
	spec := p["spec"].(map[string]any)
	for _, c := range spec["initContainers"].([]any) {
		if c := c.(map[string]any); c["name"] == "tandem-install" {
			edit(c)
		}
	}
	out, err := yaml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
