package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/presets"
)

// docs/policy.md names every preset the policy refuses, in either mode,
// so that its table of limits follows the presets table.
func TestLimitsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, limits, _ := strings.Cut(string(doc), "## What it cannot inject")
	limits, _, _ = strings.Cut(limits, "\n## ")
	for _, p := range presets.Builtin().Presets {
		for _, native := range []bool{false, true} {
			if why := unsupported(p, native); why != "" && !strings.Contains(limits, p.Name) {
				t.Errorf("preset %s (native %v: %s) is not named in docs/policy.md's limits", p.Name, native, why)
			}
		}
	}
}
