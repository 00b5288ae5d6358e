package cmdline

import (
	"regexp"
	"strings"
	"testing"
)

// IsName accepts exactly what the expression it replaced did.
func TestIsNameMatchesThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$`)
	for _, name := range []string{"", "a", "db-proxy", "Z9", "-a", "_a", ".a", "a.b_c-d", "a b", "a/b", "a\n",
		"é", "a:b", strings.Repeat("a", 253), strings.Repeat("a", 254), "9" + strings.Repeat("-", 252)} {
		if got, want := IsName(name), pattern.MatchString(name); got != want {
			t.Errorf("IsName(%q) = %v; the pattern says %v", name, got, want)
		}
	}
}
