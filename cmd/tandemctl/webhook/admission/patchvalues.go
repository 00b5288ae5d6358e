package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"gomodules.xyz/jsonpatch/v2"
)

// keepOrder gives each value the patch adds or replaces the bytes it has in
// the pod, keys in the pod's own order. The diff decodes both pods into Go
// maps, so a container that moves (sidecars to the front, or to
// initContainers) would come back with its keys sorted: the same object, but
// not the bytes the user wrote, least of all in fields newer than this
// webhook's libraries.
func keepOrder(ops []jsonpatch.Operation, pod *yaml.Node) error {
	for i, op := range ops {
		if op.Operation != "add" && op.Operation != "replace" {
			continue
		}
		n, err := pointer(pod, op.Path)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := writeJSON(&b, n); err != nil {
			return fmt.Errorf("%s: %w", op.Path, err)
		}
		ops[i].Value = json.RawMessage(b.Bytes())
	}
	return nil
}

// unescapePointer undoes RFC 6901's escapes of / and ~ in a token.
var unescapePointer = strings.NewReplacer("~1", "/", "~0", "~")

// pointer finds the node a JSON pointer (RFC 6901) names.
func pointer(n *yaml.Node, path string) (*yaml.Node, error) {
	if path == "" {
		return n, nil
	}
	for _, token := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		token = unescapePointer.Replace(token)
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == token {
					next = n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(token); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return nil, fmt.Errorf("patch path %s: not in the injected pod", path)
		}
		n = next
	}
	return n, nil
}

// writeJSON writes n as compact JSON, mapping keys in their order.
func writeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(n.Content[i].Value)
			b.Write(key)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		if writeScalar(b, n) {
			return nil
		}
		fallthrough
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return err
		}
		scalar, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(scalar)
	}
	return nil
}

// writeScalar writes the scalars a pod holds without decoding them (the
// decoder is the slow part of a patch): a string, a number as the pod wrote
// it (1e3 stays 1e3), true, false, null. False for anything else.
func writeScalar(b *bytes.Buffer, n *yaml.Node) bool {
	switch {
	case n.Tag == "!!str":
		quoted, err := json.Marshal(n.Value)
		b.Write(quoted)
		return err == nil
	case n.Style != 0:
		return false
	case n.Tag == "!!int" || n.Tag == "!!float":
		if !json.Valid([]byte(n.Value)) {
			return false
		}
	case n.Tag == "!!bool" && (n.Value == "true" || n.Value == "false"):
	case n.Tag == "!!null" && n.Value == "null":
	default:
		return false
	}
	b.WriteString(n.Value)
	return true
}
