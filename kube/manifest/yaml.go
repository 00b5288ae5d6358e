package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// separator is a document start marker alone on its line (a comment may
// follow); `--- {a: 1}` starts a document on the marker's line instead,
// which the parser reads as part of the body.
var separator = regexp.MustCompile(`^---[ \t]*(#.*)?\r?$`)

// parseYAML cuts data at its `---` lines, so that each document keeps its
// exact bytes, and parses each one. A marker at column 0 cannot be inside
// a block scalar (whose lines are indented), so cutting first is safe.
func (f *File) parseYAML(data []byte) error {
	doc := &Document{}
	startLine, line := 1, 1
	flush := func() error {
		if len(doc.prefix) == 0 && len(doc.body) == 0 {
			return nil
		}
		if err := doc.parse(f.Name, startLine); err != nil {
			return err
		}
		f.Docs = append(f.Docs, doc)
		return nil
	}
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n') + 1
		if end == 0 {
			end = len(data)
		}
		text := data[:end]
		if separator.Match(bytes.TrimRight(text, "\n")) {
			if err := flush(); err != nil {
				return err
			}
			doc = &Document{prefix: text}
			startLine = line + 1
		} else {
			doc.body = append(doc.body, text...)
		}
		data = data[end:]
		line++
	}
	return flush()
}

var lineOfError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (d *Document) parse(file string, startLine int) error {
	// Read with blank lines as marker comments, so a rewritten document
	// keeps them; when that reading fails or puts a marker in a value, the
	// document as it is decides.
	var node *yaml.Node
	if marked, ok := markBlankLines(d.body); ok {
		if n, err := decodeOne(marked, file, startLine); err == nil && n != nil && !holdsMarker(n) {
			node = n
		}
	}
	if node == nil {
		n, err := decodeOne(d.body, file, startLine)
		if err != nil || n == nil {
			return err
		}
		node = n
	}
	if line, msg := duplicateKey(node, startLine); msg != "" {
		return &ParseError{File: file, Line: line, Msg: "does not parse as YAML: " + msg}
	}
	d.Node = node
	return nil
}

// decodeOne reads the one document of body: nil for comments alone.
func decodeOne(body []byte, file string, startLine int) (*yaml.Node, error) {
	var node yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(&node)
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, yamlError(file, startLine, err)
	}
	var extra yaml.Node
	switch err = dec.Decode(&extra); {
	case err == nil:
		return nil, &ParseError{File: file, Line: startLine + extra.Line - 1, Msg: "a second document without a `---` line before it"}
	case !errors.Is(err, io.EOF):
		return nil, yamlError(file, startLine, err)
	}
	return &node, nil
}

// yamlError turns the parser's "yaml: line N: ..." into FILE:LINE.
func yamlError(file string, startLine int, err error) *ParseError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := startLine
	if m := lineOfError.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		line, msg = startLine+n-1, m[2]
	}
	return &ParseError{File: file, Line: line, Msg: "does not parse as YAML: " + msg}
}

// duplicateKey finds a key given twice in one mapping, which Kubernetes
// refuses and a node tree would silently keep. Lines count from firstLine.
func duplicateKey(n *yaml.Node, firstLine int) (line int, msg string) {
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if first, ok := seen[k.Value]; ok {
				return firstLine + k.Line - 1, fmt.Sprintf("mapping key %q already defined at line %d", k.Value, firstLine+first-1)
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if line, msg := duplicateKey(c, firstLine); msg != "" {
			return line, msg
		}
	}
	return 0, ""
}

// style is how a file indents, so that a rewritten document looks like
// the ones around it.
type style struct {
	indent int
	// compactSeq: `- ` items at the column of their parent key, as
	// kubectl writes them.
	compactSeq bool
	// jsonIndent is one level of a JSON file's indentation ("" = one line).
	jsonIndent string
}

var keyAlone = regexp.MustCompile(`^( *)[^ #-][^#]*:\s*$`)

// detectYAMLStyle reads the first mapping nested in a mapping, and the
// first sequence in a mapping; defaults are 2 spaces, indented sequences.
func detectYAMLStyle(data []byte) style {
	s := style{indent: 2}
	var seenIndent, seenSeq bool
	lines := strings.Split(string(data), "\n")
	for i := 0; i+1 < len(lines) && !(seenIndent && seenSeq); i++ {
		m := keyAlone.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		next := nextContentLine(lines[i+1:])
		parent, child := len(m[1]), len(next)-len(strings.TrimLeft(next, " "))
		switch rest := strings.TrimLeft(next, " "); {
		case strings.HasPrefix(rest, "- ") || rest == "-":
			if !seenSeq {
				s.compactSeq, seenSeq = child == parent, true
			}
		case child > parent && !seenIndent:
			s.indent, seenIndent = child-parent, true
		}
	}
	return s
}

func nextContentLine(lines []string) string {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return l
		}
	}
	return ""
}

func (s style) encodeYAML(out *bytes.Buffer, node *yaml.Node, original []byte) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(s.indent)
	if s.compactSeq {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(node); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	out.Write(restoreCommentSpacing(restoreBlankLines(buf.Bytes()), original))
	return nil
}
