package inject

import (
	"go.yaml.in/yaml/v3"
)

// The helpers below read and edit a YAML node tree in place. Nodes that are
// not rewritten keep their style, comments and position, so the encoder
// writes them back as they came.

// lookup returns the value of key in mapping m, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
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

// keyOf returns the key node of key in mapping m, or nil.
func keyOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// path follows keys from m; nil when any is missing.
func path(m *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		m = lookup(m, k)
	}
	return m
}

// scalarAt is the string value of key in m, "" when absent.
func scalarAt(m *yaml.Node, key string) string {
	if v := lookup(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// set puts value under key in mapping m: in place when the key exists (so
// the key keeps its comments and position), appended otherwise.
func set(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, str(key), value)
}

// mappingAt returns the mapping under key, creating it when absent.
func mappingAt(m *yaml.Node, key string) *yaml.Node {
	if v := lookup(m, key); v != nil && v.Kind == yaml.MappingNode {
		if v.Style&yaml.FlowStyle != 0 && len(v.Content) == 0 {
			v.Style = 0 // `annotations: {}` gets entries: write them as a block
		}
		return v
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	set(m, key, v)
	return v
}

// sequenceAt returns the sequence under key, creating it when absent.
func sequenceAt(m *yaml.Node, key string) *yaml.Node {
	if v := lookup(m, key); v != nil && v.Kind == yaml.SequenceNode {
		if v.Style&yaml.FlowStyle != 0 && len(v.Content) == 0 {
			v.Style = 0
		}
		return v
	}
	v := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	set(m, key, v)
	return v
}

// str is a string scalar, quoted only where YAML needs it.
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// quoted is a string scalar that is always double-quoted (annotation
// values such as a version must never read as numbers).
func quoted(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

// mapping builds a block mapping from key, value pairs.
func mapping(pairs ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(pairs); i += 2 {
		var v *yaml.Node
		switch x := pairs[i+1].(type) {
		case string:
			v = str(x)
		case *yaml.Node:
			v = x
		}
		m.Content = append(m.Content, str(pairs[i].(string)), v)
	}
	return m
}

// stringSeq builds a block sequence of string scalars.
func stringSeq(items []string) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range items {
		seq.Content = append(seq.Content, str(s))
	}
	return seq
}

// stringsOf reads a sequence of scalars; ok is false when n is not one.
func stringsOf(n *yaml.Node) (items []string, ok bool) {
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
