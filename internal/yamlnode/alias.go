package yamlnode

import "go.yaml.in/yaml/v3"

// ExpandForwardAliases replaces, in document order, every alias whose
// anchor comes after it with a copy of what it names: a rewrite that moves
// nodes (a sidecar moved in front of the main that holds `&res`) must not
// leave `*res` before its anchor, which no parser accepts. An alias after
// its anchor is kept as written.
func ExpandForwardAliases(root *yaml.Node) {
	expandForward(root, map[*yaml.Node]bool{})
}

func expandForward(n *yaml.Node, anchored map[*yaml.Node]bool) {
	if n.Anchor != "" {
		anchored[n] = true
	}
	for i, child := range n.Content {
		if child.Kind == yaml.AliasNode && child.Alias != nil && !anchored[child.Alias] {
			child = copyWithoutAnchors(child.Alias)
			n.Content[i] = child
		}
		expandForward(child, anchored)
	}
}

// copyWithoutAnchors is a deep copy of n that defines no anchor: the
// original still does, where it stands. Aliases inside are copied as
// aliases, for expandForward to judge in their new place.
func copyWithoutAnchors(n *yaml.Node) *yaml.Node {
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, child := range n.Content {
		if child.Kind == yaml.AliasNode {
			alias := *child
			c.Content[i] = &alias
			continue
		}
		c.Content[i] = copyWithoutAnchors(child)
	}
	return &c
}
