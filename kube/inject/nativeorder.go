package inject

import (
	"path"
	"slices"
	"strings"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Native mode starts the sidecars it moves to initContainers before the
// pod's own init containers, so that those can use them. A sidecar whose
// program is on a volume one of those init containers mounts may need
// that container to put it there first (Argo Workflows' init copies
// argoexec into /var/run/argo, which its sidecars run from): it goes just
// after the last of them instead.

// placeAfterWriter puts c into inits after the last init container that
// mounts the volume c's program is on, and reports whether it did; false
// leaves c for the front.
func placeAfterWriter(c *container, inits *yaml.Node) bool {
	volume := programVolume(c)
	if volume == "" {
		return false
	}
	last := -1
	for i, n := range contentOf(inits) {
		if mountsVolume(n, volume) {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	inits.Content = slices.Insert(inits.Content, last+1, c.node)
	return true
}

// programVolume is the name of the volume c's program is on, "" when it
// is in the image.
func programVolume(c *container) string {
	first := c.firstProgram()
	if !path.IsAbs(first) {
		return ""
	}
	program := path.Clean(first)
	for _, m := range contentOf(yamlnode.Lookup(c.node, "volumeMounts")) {
		dir := path.Clean(yamlnode.ScalarAt(m, "mountPath"))
		if dir != "/" && strings.HasPrefix(program, dir+"/") {
			return yamlnode.ScalarAt(m, "name")
		}
	}
	return ""
}

// mountsVolume tells whether container n mounts volume.
func mountsVolume(n *yaml.Node, volume string) bool {
	return slices.ContainsFunc(contentOf(yamlnode.Lookup(n, "volumeMounts")), func(m *yaml.Node) bool {
		return yamlnode.ScalarAt(m, "name") == volume
	})
}
