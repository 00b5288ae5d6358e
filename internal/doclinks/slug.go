package doclinks

import (
	"strconv"
	"strings"
	"unicode"
)

// Slug is the anchor GitHub gives a heading whose rendered text is text:
// lower case, every character that is not a letter, a digit, a mark, '-',
// '_' or a space dropped, then each space turned into '-' (github-slugger).
// Runs of spaces and dashes are kept as they are: "run [flags] -- CMD"
// becomes "run-flags----cmd".
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchorSet collects the anchors of one file in heading order: a heading
// whose slug was taken already gets "-1", "-2", … as on GitHub.
type anchorSet map[string]bool

func (a anchorSet) add(text string) {
	slug := Slug(text)
	unique := slug
	for n := 1; a[unique]; n++ {
		unique = slug + "-" + strconv.Itoa(n)
	}
	a[unique] = true
}
