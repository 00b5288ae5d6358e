package inject

import "go.yaml.in/yaml/v3"

// Containers may share fields through anchors, aliases and merge keys
// (`<<: *base`), which kubectl reads as if written out. Injection reads
// and rewrites a container as kubectl reads it, so it works on an
// expanded copy: a field that came from elsewhere is then seen, and a
// field shared with another container is not changed for both.

// expandedAll expands each node, and maps each result to its original.
func expandedAll(nodes []*yaml.Node) (views []*yaml.Node, origs map[*yaml.Node]*yaml.Node) {
	origs = map[*yaml.Node]*yaml.Node{}
	for _, n := range nodes {
		v := expanded(n)
		views = append(views, v)
		origs[v] = n
	}
	return views, origs
}

// expanded is n with every alias replaced by a copy of what it names and
// every merge key by the keys it merges: n itself when it has none of
// them. Its own anchors stay, so that the anchor a reader sees stays where
// it was; an alias elsewhere still names the original, unchanged, which
// yamlnode.ExpandForwardAliases then writes out in full.
func expanded(n *yaml.Node) *yaml.Node {
	if !shares(n) {
		return n
	}
	return expand(n, true)
}

// shares: n or a node under it is an alias, defines an anchor, or merges.
func shares(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" || isMerge(n) {
		return true
	}
	for _, c := range n.Content {
		if shares(c) {
			return true
		}
	}
	return false
}

func isMerge(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge"
}

// expand copies n expanded; a copy made for an alias or a merge defines
// no anchor (keep is false), the anchor being the original's.
func expand(n *yaml.Node, keep bool) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return expand(n.Alias, false)
	}
	c := *n
	c.Content = nil
	if !keep {
		c.Anchor = ""
	}
	if n.Kind == yaml.MappingNode {
		c.Content = merged(n, keep)
		return &c
	}
	for _, child := range n.Content {
		c.Content = append(c.Content, expand(child, keep))
	}
	return &c
}

// merged is the keys and values of mapping m, expanded, with those of
// its merge keys where the merge key stood: as YAML's merge key says, a
// key of m's own wins, and of the mappings merged the first that has it.
func merged(m *yaml.Node, keep bool) []*yaml.Node {
	taken := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !isMerge(m.Content[i]) {
			taken[m.Content[i].Value] = true
		}
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, value := m.Content[i], m.Content[i+1]
		if !isMerge(key) {
			out = append(out, expand(key, keep), expand(value, keep))
			continue
		}
		for _, src := range mergeSources(value) {
			src = expand(src, false)
			for j := 0; j+1 < len(src.Content); j += 2 {
				if k := src.Content[j].Value; !taken[k] {
					taken[k] = true
					out = append(out, src.Content[j], src.Content[j+1])
				}
			}
		}
	}
	return out
}

// mergeSources are the mappings a merge key's value names: one, or a
// sequence of them.
func mergeSources(v *yaml.Node) []*yaml.Node {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return []*yaml.Node{v}
}
