package admission

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"gomodules.xyz/jsonpatch/v2"

	"github.com/tandem-sh/tandem/kube/manifest"
)

// keepOrder gives each value the patch adds or replaces the bytes it has in
// the pod, keys in the pod's own order. The diff decodes both pods into Go
// maps, so a container that moves (sidecars to the front, or to
// initContainers) would come back with its keys sorted: the same object, but
// not the bytes the user wrote, least of all in fields newer than this
// webhook's libraries. A value it cannot write keeps the diff's own, which
// is the same value.
func keepOrder(ops []jsonpatch.Operation, pod *yaml.Node) {
	for i, op := range ops {
		if op.Operation != "add" && op.Operation != "replace" {
			continue
		}
		n := pointer(pod, op.Path)
		var b bytes.Buffer
		if n == nil || manifest.WriteJSON(&b, n) != nil {
			continue
		}
		ops[i].Value = json.RawMessage(b.Bytes())
	}
}

// unescapePointer undoes RFC 6901's escapes of / and ~ in a token.
var unescapePointer = strings.NewReplacer("~1", "/", "~0", "~")

// pointer finds the node a JSON pointer (RFC 6901) names; nil if none.
func pointer(n *yaml.Node, path string) *yaml.Node {
	for rest, more := strings.CutPrefix(path, "/"); more; {
		var token string
		token, rest, more = strings.Cut(rest, "/")
		if strings.Contains(token, "~") {
			token = unescapePointer.Replace(token)
		}
		if n = child(n, token); n == nil {
			return nil
		}
	}
	return n
}

// child is a mapping's value under key token, or a sequence's item at
// index token; nil if none.
func child(n *yaml.Node, token string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == token {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(token); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}
