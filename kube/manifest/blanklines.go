package manifest

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// blankMarker stands for a blank line while a document is a node tree: the
// YAML library keeps comments but drops blank lines, so each blank line is
// read as this comment and written back as a blank line.
const blankMarker = "#tandemctl:blank"

// markBlankLines replaces every blank line of body with blankMarker,
// indented as the next line with content; ok is false when there is none.
func markBlankLines(body []byte) (marked []byte, ok bool) {
	lines := strings.SplitAfter(string(body), "\n")
	var out strings.Builder
	indent := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if strings.TrimSpace(l) != "" {
			indent = l[:len(l)-len(strings.TrimLeft(l, " "))]
			continue
		}
		if l == "" {
			continue // what SplitAfter leaves after a final line break
		}
		lines[i] = indent + blankMarker + "\n"
		ok = true
	}
	for _, l := range lines {
		out.WriteString(l)
	}
	return []byte(out.String()), ok
}

// holdsMarker says whether a marker went into a value (a blank line inside
// a block scalar or a multi-line quoted one): that reading is wrong.
func holdsMarker(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, blankMarker) {
		return true
	}
	for _, c := range n.Content {
		if holdsMarker(c) {
			return true
		}
	}
	return false
}

// restoreBlankLines turns the markers of encoded YAML back into blank
// lines (a marker the encoder put at the end of a line is dropped).
func restoreBlankLines(data []byte) []byte {
	if !bytes.Contains(data, []byte(blankMarker)) {
		return data
	}
	lines := strings.SplitAfter(string(data), "\n")
	var out strings.Builder
	for _, l := range lines {
		switch trimmed := strings.TrimSpace(l); {
		case trimmed == blankMarker:
			out.WriteString("\n")
		case strings.HasSuffix(trimmed, " "+blankMarker):
			out.WriteString(strings.TrimRight(strings.TrimSuffix(strings.TrimRight(l, "\n"), blankMarker), " ") + "\n")
		default:
			out.WriteString(l)
		}
	}
	return []byte(out.String())
}
