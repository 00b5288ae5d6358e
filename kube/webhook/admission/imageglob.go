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

func compileImageGlob(pattern string) (imageGlob, error) {
	if strings.TrimSpace(pattern) == "" {
		return imageGlob{}, fmt.Errorf("sidecar image pattern %q: expected a glob such as *cloud-sql-proxy:*", pattern)
	}
	quoted := regexp.QuoteMeta(pattern)
	quoted = strings.ReplaceAll(quoted, `\*`, `.*`)
	quoted = strings.ReplaceAll(quoted, `\?`, `.`)
	return imageGlob{regexp.MustCompile("^" + quoted + "$")}, nil // quoted: always compiles
}

func (g imageGlob) match(image string) bool { return g.re.MatchString(image) }
