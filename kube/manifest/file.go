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
	if err := f.write(&out, false); err != nil {
		return err
	}
	_, err := w.Write(out.Bytes())
	return err
}

// write writes the file to out; separate starts each document with a
// `---` line (JSON values in a YAML stream). A JSON value it encodes ends
// its line, so the next value, the shell's prompt or `cat` of another
// file does not start on it.
func (f *File) write(out *bytes.Buffer, separate bool) error {
	for i, d := range f.Docs {
		if separate {
			if out.Len() > 0 && out.Bytes()[out.Len()-1] != '\n' {
				out.WriteByte('\n')
			}
			out.WriteString("---\n")
		}
		out.Write(d.prefix)
		if !d.Changed {
			out.Write(d.body)
			continue
		}
		if f.Format == YAML {
			if err := f.style.encodeYAML(out, d.Node, d.body); err != nil {
				return fmt.Errorf("%s: encode: %w", f.Name, err)
			}
			continue
		}
		spliced, err := f.style.spliceJSONList(out, d)
		if err == nil && !spliced {
			err = f.style.encodeJSON(out, d.Node)
		}
		if err != nil {
			return fmt.Errorf("%s: encode: %w", f.Name, err)
		}
		if next := bytes.TrimLeft(f.after(i), " \t\r"); !bytes.HasPrefix(next, []byte("\n")) {
			out.WriteByte('\n')
		}
	}
	out.Write(f.trailer)
	return nil
}

// after is what the file has after its document i: the next one's
// prefix, else the trailer.
func (f *File) after(i int) []byte {
	if i+1 < len(f.Docs) {
		return f.Docs[i+1].prefix
	}
	return f.trailer
}
