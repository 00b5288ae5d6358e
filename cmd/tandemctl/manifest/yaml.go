package manifest

import (
	"bytes"
	"errors"
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
	var node yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(d.body))
	err := dec.Decode(&node)
	if errors.Is(err, io.EOF) {
		return nil // comments alone, or nothing
	}
	if err == nil {
		var extra yaml.Node
		if dec.Decode(&extra) == nil {
			return &ParseError{File: file, Line: startLine + extra.Line - 1, Msg: "a second document without a `---` line before it"}
		}
		d.Node = &node
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := startLine
	if m := lineOfError.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		line, msg = startLine+n-1, m[2]
	}
	return &ParseError{File: file, Line: line, Msg: "does not parse as YAML: " + msg}
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

func (s style) encodeYAML(out *bytes.Buffer, node *yaml.Node) error {
	enc := yaml.NewEncoder(out)
	enc.SetIndent(s.indent)
	if s.compactSeq {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(node); err != nil {
		return err
	}
	return enc.Close()
}
