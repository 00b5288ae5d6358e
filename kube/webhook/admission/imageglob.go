package admission

import (
	"fmt"
	"regexp"
	"strings"
)

// imageGlob matches image references with a shell-like glob in which * is
// any run of characters, slashes included (path.Match's * stops at a
// slash, and registries nest repositories: gcr.io/a/b/proxy:2), and ? one
// character. Everything else is literal.
type imageGlob struct{ re *regexp.Regexp }

// globChars are the characters of an image reference, and the glob's *
// and ?: a pattern with another (a space, a bracket) matches no image.
var globChars = regexp.MustCompile(`^[A-Za-z0-9._:/@*?-]+$`)

// CheckImageGlob refuses a pattern that can match no image reference.
func CheckImageGlob(pattern string) error {
	if !globChars.MatchString(pattern) {
		return fmt.Errorf("%q: expected a glob of an image reference's characters (letters, digits, '.', '_', '-', ':', '/', '@') with * and ?, such as *cloud-sql-proxy:*", pattern)
	}
	return nil
}

func compileImageGlob(pattern string) (imageGlob, error) {
	if err := CheckImageGlob(pattern); err != nil {
		return imageGlob{}, fmt.Errorf("sidecar image pattern %w", err)
	}
	quoted := regexp.QuoteMeta(pattern)
	quoted = strings.ReplaceAll(quoted, `\*`, `.*`)
	quoted = strings.ReplaceAll(quoted, `\?`, `.`)
	return imageGlob{regexp.MustCompile("^" + quoted + "$")}, nil // quoted: always compiles
}

func (g imageGlob) match(image string) bool { return g.re.MatchString(image) }
