//go:build k8s

package k8s

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// manifest is an example of examples/ as the API object it describes
// (kubectl reads the YAML: no YAML library in the module), edited by the
// test before it is applied.
type manifest struct {
	source string // the example's file name, or "" for a test's own
	obj    map[string]any
	// commands are the example's own `command:` lists, by container: what
	// apply checks is applied unchanged, unless the test changes them on
	// purpose (changed).
	commands map[string][]string
	changed  bool
}

// example reads examples/file. Every image becomes a local one, never
// pulled: the tandem image stays the tandem image (the init-copy pattern
// copies it for real), every other becomes testImage.
func example(t *testing.T, file string) *manifest {
	t.Helper()
	requireCluster(t)
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	out, err := kubectl(ctx, nil, "create", "--dry-run=client", "--validate=false", "-o", "json",
		"-f", filepath.Join(repoRoot, "examples", file))
	if err != nil {
		t.Fatalf("examples/%s: %v", file, err)
	}
	m := &manifest{source: file, commands: map[string][]string{}}
	if err := json.Unmarshal([]byte(out), &m.obj); err != nil {
		t.Fatalf("examples/%s: one object expected: %v", file, err)
	}
	// kubectl filled in its context's namespace; the test's own is used.
	delete(m.field("metadata"), "namespace")
	for _, c := range m.containers(t) {
		m.commands[str(c["name"])] = strList(c["command"])
		if strings.HasPrefix(str(c["image"]), "ghcr.io/tandem-sh/tandem:") {
			c["image"] = tandemImage
		} else {
			c["image"] = testImage
		}
		c["imagePullPolicy"] = "Never"
	}
	return m
}

func (m *manifest) name() string { return str(m.field("metadata")["name"]) }

// field walks maps by key from the object's root.
func (m *manifest) field(keys ...string) map[string]any {
	cur := m.obj
	for _, k := range keys {
		next, _ := cur[k].(map[string]any)
		if next == nil {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	return cur
}

// podSpec is spec.template.spec of a Job or a Deployment, spec of a Pod.
func (m *manifest) podSpec() map[string]any {
	if m.obj["kind"] == "Pod" {
		return m.field("spec")
	}
	return m.field("spec", "template", "spec")
}

// asPod makes the object its pod template as a bare Pod of the same name:
// deleted by hand, no controller replaces it.
func (m *manifest) asPod() {
	template := m.field("spec", "template")
	meta, _ := template["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["name"] = m.name()
	m.obj = map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": template["spec"]}
}

// containers lists the containers and init containers, as live maps.
func (m *manifest) containers(t *testing.T) []map[string]any {
	t.Helper()
	var all []map[string]any
	for _, key := range []string{"initContainers", "containers"} {
		list, _ := m.podSpec()[key].([]any)
		for _, c := range list {
			all = append(all, c.(map[string]any))
		}
	}
	if len(all) == 0 {
		t.Fatalf("%s: no containers in spec.template.spec", m.source)
	}
	return all
}

func (m *manifest) container(t *testing.T, name string) map[string]any {
	t.Helper()
	for _, c := range m.containers(t) {
		if c["name"] == name {
			return c
		}
	}
	t.Fatalf("%s: no container %q", m.source, name)
	return nil
}

// args replaces what the container runs under tandem: the app.
func (m *manifest) args(t *testing.T, ctr string, args ...string) {
	t.Helper()
	c := m.container(t, ctr)
	if _, ok := c["args"]; !ok {
		t.Fatalf("%s: container %s has no args to replace", m.source, ctr)
	}
	c["args"] = anyList(args)
}

// command sets a container's command, which makes the manifest the test's
// own variant of the example.
func (m *manifest) command(t *testing.T, ctr string, command ...string) {
	t.Helper()
	m.changed = true
	m.container(t, ctr)["command"] = anyList(command)
}

// withoutTandem makes ctr run its args directly: the classic pod.
func (m *manifest) withoutTandem(t *testing.T, ctr string) {
	t.Helper()
	c := m.container(t, ctr)
	m.command(t, ctr, strList(c["args"])...)
	delete(c, "args")
}

// addFlags adds flags to ctr's tandem command line, before its `--`.
func (m *manifest) addFlags(t *testing.T, ctr string, flags ...string) {
	t.Helper()
	cmd := strList(m.container(t, ctr)["command"])
	at := slices.Index(cmd, "--")
	if at < 0 {
		t.Fatalf("%s: container %s: no -- in %q", m.source, ctr, cmd)
	}
	m.command(t, ctr, slices.Insert(cmd, at, flags...)...)
}

// checkCommands fails the test when a container's command differs from the
// example's: the tandem command lines are what the tests test.
func (m *manifest) checkCommands(t *testing.T) {
	t.Helper()
	if m.changed || m.source == "" {
		return
	}
	for _, c := range m.containers(t) {
		name := str(c["name"])
		if got := strList(c["command"]); !slices.Equal(got, m.commands[name]) {
			t.Fatalf("container %s: command %q, but examples/%s says %q", name, got, m.source, m.commands[name])
		}
	}
}

func (m *manifest) json(t *testing.T) []byte {
	t.Helper()
	data, err := json.Marshal(m.obj)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// apply creates the object in n and returns when the apply started.
func (n *namespace) apply(m *manifest) time.Time {
	n.t.Helper()
	m.checkCommands(n.t)
	if m.source != "" {
		markPlayed(m.source)
	}
	start := time.Now()
	n.run(m.json(n.t), "apply", "-f", "-")
	n.t.Cleanup(func() {
		if n.t.Failed() {
			n.t.Logf("applied:\n%s", m.json(n.t))
		}
	})
	return start
}

func str(v any) string { s, _ := v.(string); return s }

func strList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, str(s))
	}
	return out
}

func anyList(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
