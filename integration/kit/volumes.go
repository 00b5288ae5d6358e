package kit

import (
	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// volumes are the pod's volume mappings.
func (m *Manifest) volumes() []*yaml.Node {
	if list := yamlnode.Lookup(m.PodSpec(), "volumes"); list != nil {
		return list.Content
	}
	return nil
}

// EmptyDirs lists the pod's emptyDir volumes.
func (m *Manifest) EmptyDirs() []string {
	var names []string
	for _, v := range m.volumes() {
		if yamlnode.Lookup(v, "emptyDir") != nil {
			names = append(names, yamlnode.ScalarAt(v, "name"))
		}
	}
	return names
}

// RenameVolume renames a volume and every mount of it.
func (m *Manifest) RenameVolume(from, to string) {
	for _, v := range m.volumes() {
		if yamlnode.ScalarAt(v, "name") == from {
			yamlnode.Set(v, "name", yamlnode.Str(to))
		}
	}
	for _, c := range m.containers() {
		if mounts := yamlnode.Lookup(c, "volumeMounts"); mounts != nil {
			for _, mount := range mounts.Content {
				if yamlnode.ScalarAt(mount, "name") == from {
					yamlnode.Set(mount, "name", yamlnode.Str(to))
				}
			}
		}
	}
}

// HostPath points the hostPath volume named volume at dir.
func (m *Manifest) HostPath(volume, dir string) {
	m.t.Helper()
	for _, v := range m.volumes() {
		if path := yamlnode.Path(v, "hostPath", "path"); yamlnode.ScalarAt(v, "name") == volume && path != nil {
			yamlnode.Set(yamlnode.Lookup(v, "hostPath"), "path", yamlnode.Str(dir))
			return
		}
	}
	m.t.Fatalf("%s: no hostPath volume %q with a path", m.Source, volume)
}
