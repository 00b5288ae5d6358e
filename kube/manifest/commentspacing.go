package manifest

import (
	"bytes"
	"regexp"
)

// trailingComment is a line's content, the white space before its
// comment, and the comment.
var trailingComment = regexp.MustCompile(`^(.*\S)([ \t]+)(#.*)$`)

// restoreCommentSpacing gives each line comment of encoded the white space
// it had before it in original (the encoder writes one space: comments
// aligned in a column would lose their alignment). A comment whose text
// is found with different spacings in original is left as encoded.
func restoreCommentSpacing(encoded, original []byte) []byte {
	spacing := map[string]string{}
	ambiguous := map[string]bool{}
	for _, line := range bytes.Split(original, []byte("\n")) {
		m := trailingComment.FindSubmatch(bytes.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		comment, ws := string(m[3]), string(m[2])
		if seen, ok := spacing[comment]; ok && seen != ws {
			ambiguous[comment] = true
		}
		spacing[comment] = ws
	}
	lines := bytes.Split(encoded, []byte("\n"))
	for i, line := range lines {
		m := trailingComment.FindSubmatch(line)
		if m == nil || string(m[2]) != " " || ambiguous[string(m[3])] {
			continue
		}
		if ws, ok := spacing[string(m[3])]; ok && ws != " " {
			lines[i] = append(append(append([]byte{}, m[1]...), ws...), m[3]...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}
