package kit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// Manifest is one object of examples/ (or a test's own) as a YAML node
// tree, edited by a test before it plays it. Every edit fails the test when
// the manifest lacks what it edits.
type Manifest struct {
	t testing.TB
	// Source is the file it was read from (relative to examples/ for an
	// example), for messages and MarkPlayed; "" for a test's own object.
	Source string
	root   *yaml.Node
	// commands are the manifest's own `command:` lists, by container: what
	// CheckCommands holds, unless the test changed them on purpose.
	commands map[string][]string
	changed  bool
}

// ReadExample reads repoRoot/examples/file.
func ReadExample(t testing.TB, repoRoot, file string) *Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	return Parse(t, file, data)
}

// Parse reads one YAML (or JSON) document holding one object.
func Parse(t testing.TB, source string, data []byte) *Manifest {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, extra yaml.Node
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", source, err)
	}
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("%s: several YAML documents; the tests play one object per file", source)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: not an object", source)
	}
	return newManifest(t, source, doc.Content[0])
}

// FromObject is a test's own manifest, made from a Go value (maps, lists).
func FromObject(t testing.TB, obj any) *Manifest {
	t.Helper()
	return newManifest(t, "", encode(t, obj))
}

func newManifest(t testing.TB, source string, root *yaml.Node) *Manifest {
	t.Helper()
	m := &Manifest{t: t, Source: source, root: root, commands: map[string][]string{}}
	for _, name := range m.ContainerNames() {
		m.commands[name] = m.List(name, "command")
	}
	return m
}

func encode(t testing.TB, v any) *yaml.Node {
	t.Helper()
	if n, ok := v.(*yaml.Node); ok {
		return n
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		t.Fatalf("encode %v: %v", v, err)
	}
	return &n
}

// Kind is the object's kind.
func (m *Manifest) Kind() string { return yamlnode.ScalarAt(m.root, "kind") }

// Name is the object's metadata.name.
func (m *Manifest) Name() string {
	return yamlnode.ScalarAt(yamlnode.Lookup(m.root, "metadata"), "name")
}

// SetName renames the object.
func (m *Manifest) SetName(name string) { m.Set(name, "metadata", "name") }

// Set puts value (a Go value or a node) at the path of keys from the
// object's root, making the mappings on the way.
func (m *Manifest) Set(value any, keys ...string) {
	m.t.Helper()
	parent := m.root
	for _, k := range keys[:len(keys)-1] {
		parent = yamlnode.MappingAt(parent, k)
	}
	yamlnode.Set(parent, keys[len(keys)-1], encode(m.t, value))
}

// Delete removes the field at the path of keys, if there is one.
func (m *Manifest) Delete(keys ...string) {
	deleteKey(yamlnode.Path(m.root, keys[:len(keys)-1]...), keys[len(keys)-1])
}

func deleteKey(mapping *yaml.Node, key string) {
	if mapping == nil {
		return
	}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == key {
			mapping.Content = slices.Delete(mapping.Content, i, i+2)
			return
		}
	}
}

// PodSpec is spec of a Pod, spec.template.spec of a Job or a Deployment.
func (m *Manifest) PodSpec() *yaml.Node {
	if m.Kind() == "Pod" {
		return yamlnode.MappingAt(m.root, "spec")
	}
	return yamlnode.MappingAt(yamlnode.MappingAt(yamlnode.MappingAt(m.root, "spec"), "template"), "spec")
}

// SetPodSpec sets a field of the pod spec.
func (m *Manifest) SetPodSpec(key string, value any) {
	m.t.Helper()
	yamlnode.Set(m.PodSpec(), key, encode(m.t, value))
}

// AsPod makes the object its pod template as a bare Pod of the same name.
func (m *Manifest) AsPod() {
	template := yamlnode.Path(m.root, "spec", "template")
	if template == nil {
		m.t.Fatalf("%s: no spec.template", m.Source)
	}
	name := m.Name()
	m.root = yamlnode.Mapping("apiVersion", "v1", "kind", "Pod",
		"metadata", yamlnode.MappingAt(template, "metadata"), "spec", yamlnode.MappingAt(template, "spec"))
	m.SetName(name)
}

// Annotate adds an annotation to the object.
func (m *Manifest) Annotate(key, value string) {
	yamlnode.Set(yamlnode.MappingAt(yamlnode.MappingAt(m.root, "metadata"), "annotations"), key, yamlnode.Quoted(value))
}

// YAML is the manifest to play.
func (m *Manifest) YAML() []byte {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m.root); err != nil {
		panic(fmt.Sprintf("encode %s: %v", m.Source, err)) // a tree read from YAML always encodes
	}
	return buf.Bytes()
}
