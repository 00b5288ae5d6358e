// Package yamlnode reads and edits YAML node trees in place: the helpers
// tandemctl's injector rewrites manifests with, and the test kit edits
// examples/ with. Nodes that are not rewritten keep their style, comments
// and position, so the encoder writes them back as they came.
package yamlnode

import (
	"go.yaml.in/yaml/v3"
)

// Lookup returns the value of key in mapping m, or nil.
func Lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// KeyOf returns the key node of key in mapping m, or nil.
func KeyOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// Path follows keys from m; nil when any is missing.
func Path(m *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		m = Lookup(m, k)
	}
	return m
}

// ScalarAt is the string value of key in m, "" when absent.
func ScalarAt(m *yaml.Node, key string) string {
	if v := Lookup(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// Set puts value under key in mapping m: in place when the key exists (so
// the key keeps its comments and position), appended otherwise.
func Set(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, Str(key), value)
}

// MappingAt returns the mapping under key, creating it when absent.
func MappingAt(m *yaml.Node, key string) *yaml.Node {
	if v := Lookup(m, key); v != nil && v.Kind == yaml.MappingNode {
		if v.Style&yaml.FlowStyle != 0 && len(v.Content) == 0 {
			v.Style = 0 // `annotations: {}` gets entries: write them as a block
		}
		return v
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	Set(m, key, v)
	return v
}

// SequenceAt returns the sequence under key, creating it when absent.
func SequenceAt(m *yaml.Node, key string) *yaml.Node {
	if v := Lookup(m, key); v != nil && v.Kind == yaml.SequenceNode {
		if v.Style&yaml.FlowStyle != 0 && len(v.Content) == 0 {
			v.Style = 0
		}
		return v
	}
	v := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	Set(m, key, v)
	return v
}

// Str is a string scalar, quoted only where YAML needs it.
func Str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// Quoted is a string scalar that is always double-quoted (annotation
// values such as a version must never read as numbers).
func Quoted(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

// Mapping builds a block mapping from key, value pairs.
func Mapping(pairs ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(pairs); i += 2 {
		var v *yaml.Node
		switch x := pairs[i+1].(type) {
		case string:
			v = Str(x)
		case *yaml.Node:
			v = x
		}
		m.Content = append(m.Content, Str(pairs[i].(string)), v)
	}
	return m
}

// StringSeq builds a block sequence of string scalars.
func StringSeq(items []string) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range items {
		seq.Content = append(seq.Content, Str(s))
	}
	return seq
}

// StringsOf reads a sequence of scalars; ok is false when n is not one.
func StringsOf(n *yaml.Node) (items []string, ok bool) {
	if n == nil {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		return nil, n.Kind == yaml.ScalarNode && n.Tag == "!!null"
	}
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode {
			return nil, false
		}
		items = append(items, item.Value)
	}
	return items, true
}
