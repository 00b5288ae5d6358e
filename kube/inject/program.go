package inject

import (
	"strings"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Program is the argv a container runs, merged from its command and args
// and its image's ENTRYPOINT and CMD exactly as Kubernetes merges them
// (an empty list counts as absent, as it does once it reaches the runtime):
//
//	command set:       command + args (the image's ENTRYPOINT and CMD are ignored)
//	command not set:   ENTRYPOINT + args, or ENTRYPOINT + CMD when args are not set
func Program(command, args []string, image ImageConfig) []string {
	if len(command) > 0 {
		return append(append([]string{}, command...), args...)
	}
	if len(args) > 0 {
		return append(append([]string{}, image.Entrypoint...), args...)
	}
	return append(append([]string{}, image.Entrypoint...), image.Cmd...)
}

// needsImage says whether Program needs the image's config at all.
func needsImage(command []string) bool { return len(command) == 0 }

// programNode is Program as the sequence that becomes the container's
// args. Items that came from the manifest are its own nodes (comments and
// quoting kept); items from the image are escaped, because Kubernetes
// expands $(VAR) in args but never in the image's ENTRYPOINT and CMD.
func programNode(command, args *yaml.Node, image ImageConfig) *yaml.Node {
	// Flow style (`[a, b]`) only when the manifest wrote every list it
	// gave that way.
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, n := range []*yaml.Node{command, args} {
		if n == nil || n.Kind != yaml.SequenceNode {
			continue
		}
		if n.Style&yaml.FlowStyle == 0 {
			seq.Style = 0
			break
		}
		seq.Style = yaml.FlowStyle
	}
	own := func(n *yaml.Node) []*yaml.Node {
		if n == nil || n.Kind != yaml.SequenceNode {
			return nil
		}
		return n.Content
	}
	fromImage := func(items []string) []*yaml.Node {
		var nodes []*yaml.Node
		for _, s := range items {
			nodes = append(nodes, yamlnode.Str(escapeExpansion(s)))
		}
		return nodes
	}
	switch {
	case len(own(command)) > 0:
		seq.Content = append(append(seq.Content, own(command)...), own(args)...)
	case len(own(args)) > 0:
		seq.Content = append(append(seq.Content, fromImage(image.Entrypoint)...), own(args)...)
	default:
		seq.Content = append(append(seq.Content, fromImage(image.Entrypoint)...), fromImage(image.Cmd)...)
	}
	return seq
}

// escapeExpansion makes s read literally under Kubernetes' $(VAR)
// expansion, where `$$` is a literal `$` and `$(` starts a reference.
func escapeExpansion(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '$' && i+1 < len(s) && (s[i+1] == '$' || s[i+1] == '(') {
			b.WriteByte('$')
		}
	}
	return b.String()
}
