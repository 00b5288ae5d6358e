package kit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// List returns ctr's command or args, nil when absent. Every item must be a
// string as Kubernetes reads it (YAML 1.1): the tests compare them exactly.
func (m *Manifest) List(ctr, key string) []string {
	m.t.Helper()
	list := yamlnode.Lookup(m.Container(ctr), key)
	if list == nil {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		m.t.Fatalf("%s, container %s: %s: expected a list of strings", m.Source, ctr, key)
	}
	var items []string
	for _, item := range list.Content {
		value, err := stringItem(item)
		if err != nil {
			m.t.Fatalf("%s, container %s: %s: %v", m.Source, ctr, key, err)
		}
		items = append(items, value)
	}
	return items
}

// stringItem reads one item of a command line; anything that Kubernetes
// would not read as this very string is refused.
func stringItem(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || (n.Style == 0 && nonString.MatchString(n.Value)) {
		return "", fmt.Errorf("line %d: %q: quote this item", n.Line, n.Value)
	}
	return n.Value, nil
}

// nonString matches the plain scalars that YAML 1.1 (what the Kubernetes
// API reads) types as numbers, booleans or null rather than strings, where
// YAML 1.2 may read a string.
var nonString = regexp.MustCompile(`^(?i:` +
	`[-+]?(\d[\d_]*(\.\d*)?|\.\d+)(e[-+]?\d+)?|[-+]?0x[\da-f_]+|[-+]?0o?[0-7_]+|[-+]?\d[\d_]*(:[0-5]?\d)+(\.\d*)?|` +
	`[-+]?\.inf|\.nan|y|n|yes|no|true|false|on|off|null|~)$`)

// SetList sets ctr's command or args; nil removes the field.
func (m *Manifest) SetList(ctr, key string, list []string) {
	m.t.Helper()
	c := m.Container(ctr)
	if list == nil {
		deleteKey(c, key)
		return
	}
	yamlnode.Set(c, key, yamlnode.StringSeq(list))
}

// Args replaces what the container runs under tandem: the app.
func (m *Manifest) Args(ctr string, args ...string) {
	m.t.Helper()
	if yamlnode.Lookup(m.Container(ctr), "args") == nil {
		m.t.Fatalf("%s: container %s has no args to replace", m.Source, ctr)
	}
	m.SetList(ctr, "args", args)
}

// SetCommand sets ctr's command, which makes the manifest the test's own
// variant of the example.
func (m *Manifest) SetCommand(ctr string, command ...string) {
	m.t.Helper()
	m.changed = true
	m.SetList(ctr, "command", command)
}

// WithoutTandem makes ctr run its args directly: the classic pod.
func (m *Manifest) WithoutTandem(ctr string) {
	m.t.Helper()
	m.SetCommand(ctr, m.List(ctr, "args")...)
	m.SetList(ctr, "args", nil)
}

// AddFlags adds flags to ctr's tandem command line, before its `--`.
func (m *Manifest) AddFlags(ctr string, flags ...string) {
	m.t.Helper()
	cmd := m.List(ctr, "command")
	at := slices.Index(cmd, "--")
	if at < 0 {
		m.t.Fatalf("%s: container %s: no -- in %q", m.Source, ctr, cmd)
	}
	m.SetCommand(ctr, slices.Insert(cmd, at, flags...)...)
}

// DropFlag removes a flag and its value (--flag=VALUE or --flag VALUE)
// from ctr's tandem command line.
func (m *Manifest) DropFlag(ctr, flag string) {
	m.t.Helper()
	cmd := m.List(ctr, "command")
	for i, arg := range cmd {
		if strings.HasPrefix(arg, flag+"=") {
			m.SetCommand(ctr, slices.Delete(cmd, i, i+1)...)
			return
		}
		if arg == flag && i+1 < len(cmd) {
			m.SetCommand(ctr, slices.Delete(cmd, i, i+2)...)
			return
		}
	}
	m.t.Fatalf("%s, container %s: no %s VALUE in %q", m.Source, ctr, flag, cmd)
}

// CheckCommands fails the test when a container's command differs from
// the manifest's own: the tandem command lines are what the tests test.
func (m *Manifest) CheckCommands() {
	m.t.Helper()
	if m.changed || m.Source == "" {
		return
	}
	for _, ctr := range m.ContainerNames() {
		if got := m.List(ctr, "command"); !slices.Equal(got, m.commands[ctr]) {
			m.t.Fatalf("container %s: command %q, but %s says %q", ctr, got, m.Source, m.commands[ctr])
		}
	}
}
