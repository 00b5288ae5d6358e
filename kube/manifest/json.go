package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseJSON splits a stream of JSON values (what `kubectl get -o json`
// writes, one or several) and parses each as YAML, of which JSON is a part.
func (f *File) parseJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var prev int64
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			f.trailer = data[prev:]
			return nil
		}
		if err != nil {
			return &ParseError{File: f.Name, Line: jsonErrorLine(data, err, prev), Msg: "does not parse as JSON: " + err.Error()}
		}
		end := dec.InputOffset()
		start := end - int64(len(raw))
		doc := &Document{prefix: data[prev:start], body: data[start:end]}
		var node yaml.Node
		if err := yaml.Unmarshal(raw, &node); err != nil {
			return &ParseError{File: f.Name, Line: lineAt(data, start), Msg: "cannot be read as a manifest: " + err.Error()}
		}
		if line, msg := duplicateKey(&node, lineAt(data, start)); msg != "" {
			return &ParseError{File: f.Name, Line: line, Msg: "does not parse as JSON: " + msg}
		}
		doc.Node = &node
		f.Docs = append(f.Docs, doc)
		prev = end
	}
}

func jsonErrorLine(data []byte, err error, from int64) int {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return lineAt(data, syntax.Offset)
	}
	return lineAt(data, from)
}

func lineAt(data []byte, offset int64) int {
	offset = min(offset, int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// detectJSONStyle reads the indentation of the first indented line.
func detectJSONStyle(data []byte) style {
	for _, l := range strings.Split(string(data), "\n")[1:] {
		if indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]; indent != "" {
			return style{indent: 2, jsonIndent: indent}
		}
	}
	return style{indent: 2}
}

func (s style) encodeJSON(out *bytes.Buffer, node *yaml.Node) error {
	var compact bytes.Buffer
	if err := writeJSON(&compact, node); err != nil {
		return err
	}
	if s.jsonIndent == "" {
		out.Write(compact.Bytes())
		return nil
	}
	return json.Indent(out, compact.Bytes(), "", s.jsonIndent)
}

// WriteJSON writes a node tree as compact JSON, keys in their order and
// scalars as written (the webhook's patch values keep a pod's own bytes).
func WriteJSON(out *bytes.Buffer, n *yaml.Node) error { return writeJSON(out, n) }

// writeJSON writes a node tree as compact JSON, keys in their order.
func writeJSON(out *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode, yaml.AliasNode:
		if n.Kind == yaml.AliasNode {
			return writeJSON(out, n.Alias)
		}
		return writeJSON(out, n.Content[0])
	case yaml.MappingNode:
		out.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				out.WriteByte(',')
			}
			writeString(out, n.Content[i].Value)
			out.WriteByte(':')
			if err := writeJSON(out, n.Content[i+1]); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	case yaml.SequenceNode:
		out.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := writeJSON(out, item); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case yaml.ScalarNode:
		return writeScalar(out, n)
	default:
		return fmt.Errorf("line %d: a node of kind %d has no JSON form", n.Line, n.Kind)
	}
	return nil
}

func writeScalar(out *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!str":
		writeString(out, n.Value)
	case "!!null":
		out.WriteString("null")
	case "!!int", "!!float", "!!bool":
		if !json.Valid([]byte(n.Value)) {
			return fmt.Errorf("line %d: %s %q is not valid JSON", n.Line, n.ShortTag(), n.Value)
		}
		out.WriteString(n.Value)
	default:
		return fmt.Errorf("line %d: tag %s has no JSON form", n.Line, n.ShortTag())
	}
	return nil
}

func writeString(out *bytes.Buffer, s string) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out.Truncate(out.Len() - 1)
}
