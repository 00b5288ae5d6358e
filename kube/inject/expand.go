package inject

import "go.yaml.in/yaml/v3"

// expandedAll is the nodes the plan reads and apply writes, mapped to the
// containers the pod lists: the same ones.
func expandedAll(nodes []*yaml.Node) (views []*yaml.Node, origs map[*yaml.Node]*yaml.Node) {
	origs = map[*yaml.Node]*yaml.Node{}
	for _, n := range nodes {
		views = append(views, n)
		origs[n] = n
	}
	return views, origs
}
