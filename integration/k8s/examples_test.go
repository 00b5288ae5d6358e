//go:build k8s

package k8s

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// A new file in examples/ fails this test until a test plays it and
// kit.Examples lists it.
func TestEveryExampleIsPlayed(t *testing.T) {
	kit.CheckListed(t, repoRoot, "integration/k8s")
}
