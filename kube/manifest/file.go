package manifest

import (
	"bytes"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Format is the syntax of a file, kept for its output.
type Format int

const (
	YAML Format = iota
	JSON
)

// File is one input, split into documents.
type File struct {
	Name   string
	Format Format
	Docs   []*Document
	// trailer is what follows the last JSON value (white space).
	trailer []byte
	style   style
}

// Document is one YAML document or one JSON value.
type Document struct {
	// prefix is what precedes the document: its `---` line for YAML, the
	// white space before the value for JSON.
	prefix []byte
	// body is the document's own text, written back when it is unchanged.
	body []byte
	// Node is the parsed document (a yaml.DocumentNode), nil when the
	// document holds nothing but comments.
	Node *yaml.Node
	// Changed makes Write encode Node instead of writing body.
	Changed bool
}

// ParseError is input that does not parse: file and line.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Parse splits data into documents and parses each one.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Name: name}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		f.Format = JSON
		f.style = detectJSONStyle(data)
		err := f.parseJSON(data)
		if err == nil {
			return f, nil
		}
		// `{a: 1}` is YAML's flow style, not JSON: read it as YAML, and
		// report the JSON error when that fails too.
		yf := &File{Name: name, Format: YAML, style: detectYAMLStyle(data)}
		if yf.parseYAML(data) == nil {
			return yf, nil
		}
		return f, err
	}
	f.style = detectYAMLStyle(data)
	return f, f.parseYAML(data)
}

// Resources are the mappings of the file that may be Kubernetes objects:
// each document, or each item of a `kind: List`. They belong to doc, whose
// Changed the caller sets when it rewrote one.
func (d *Document) Resources() []*yaml.Node {
	if d.Node == nil || len(d.Node.Content) == 0 {
		return nil
	}
	root := d.Node.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil
	}
	if kind, items := field(root, "kind"), field(root, "items"); kind != nil && kind.Value == "List" && items != nil && items.Kind == yaml.SequenceNode {
		var resources []*yaml.Node
		for _, item := range items.Content {
			if item.Kind == yaml.MappingNode {
				resources = append(resources, item)
			}
		}
		return resources
	}
	return []*yaml.Node{root}
}

func field(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// Write writes the file: unchanged documents as they were read.
func (f *File) Write(w io.Writer) error {
	var out bytes.Buffer
	for _, d := range f.Docs {
		out.Write(d.prefix)
		if !d.Changed {
			out.Write(d.body)
			continue
		}
		var err error
		if f.Format == JSON {
			var spliced bool
			if spliced, err = f.style.spliceJSONList(&out, d); err == nil && !spliced {
				err = f.style.encodeJSON(&out, d.Node)
			}
		} else {
			err = f.style.encodeYAML(&out, d.Node, d.body)
		}
		if err != nil {
			return fmt.Errorf("%s: encode: %w", f.Name, err)
		}
	}
	out.Write(f.trailer)
	_, err := w.Write(out.Bytes())
	return err
}
