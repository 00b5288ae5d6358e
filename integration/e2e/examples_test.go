//go:build e2e

package e2e

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// A new file in examples/ fails this test until a test plays it and
// kit.Examples lists it.
func TestEveryExampleIsPlayed(t *testing.T) {
	kit.CheckListed(t, repoRoot, "integration/e2e")
}
