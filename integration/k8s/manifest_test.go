//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// example reads examples/file. Every image becomes a local one, never
// pulled: the tandem image stays the tandem image (the init-copy pattern
// copies it for real), every other becomes testImage.
func example(t *testing.T, file string) *kit.Manifest {
	t.Helper()
	requireCluster(t)
	m := kit.ReadExample(t, repoRoot, file)
	// The test's own namespace is used.
	m.Delete("metadata", "namespace")
	m.LocalImages(tandemImage, testImage)
	return m
}

// apply creates the object in n and returns when the apply started.
func (n *namespace) apply(m *kit.Manifest) time.Time {
	n.t.Helper()
	m.CheckCommands()
	if m.Source != "" {
		kit.MarkPlayed(m.Source)
	}
	return n.applyRaw(m.YAML())
}

// applyRaw applies a manifest as it is (YAML or JSON), and returns when
// the apply started.
func (n *namespace) applyRaw(data []byte) time.Time {
	n.t.Helper()
	start := time.Now()
	n.run(data, "apply", "-f", "-")
	n.t.Cleanup(func() {
		if n.t.Failed() {
			n.t.Logf("applied:\n%s", data)
		}
	})
	return start
}
