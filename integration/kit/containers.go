package kit

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// containerKeys are the pod spec's lists of containers, init ones first.
var containerKeys = []string{"initContainers", "containers"}

// containers are the container and init container mappings of the pod.
func (m *Manifest) containers() []*yaml.Node {
	var all []*yaml.Node
	for _, key := range containerKeys {
		if list := yamlnode.Lookup(m.PodSpec(), key); list != nil && list.Kind == yaml.SequenceNode {
			all = append(all, list.Content...)
		}
	}
	return all
}

// ContainerNames are the names of every init container and container.
func (m *Manifest) ContainerNames() []string {
	var names []string
	for _, c := range m.containers() {
		names = append(names, yamlnode.ScalarAt(c, "name"))
	}
	return names
}

// IsInit tells whether ctr is an init container.
func (m *Manifest) IsInit(ctr string) bool {
	inits := yamlnode.Lookup(m.PodSpec(), "initContainers")
	return inits != nil && slices.ContainsFunc(inits.Content, func(c *yaml.Node) bool {
		return yamlnode.ScalarAt(c, "name") == ctr
	})
}

// Container is the mapping of the container or init container ctr.
func (m *Manifest) Container(ctr string) *yaml.Node {
	m.t.Helper()
	for _, c := range m.containers() {
		if yamlnode.ScalarAt(c, "name") == ctr {
			return c
		}
	}
	m.t.Fatalf("%s: no container %q", m.Source, ctr)
	return nil
}

// Place says where AddContainer puts a container.
type Place int

const (
	First Place = iota // before the pod's containers
	Last               // after them, as an admission webhook appends
)

// AddContainer adds a container (a Go value or a node) that the manifest
// does not name, as a sidecar injector would; its command is its own.
func (m *Manifest) AddContainer(at Place, c any) {
	m.t.Helper()
	node := encode(m.t, c)
	list := yamlnode.SequenceAt(m.PodSpec(), "containers")
	if at == First {
		list.Content = slices.Insert(list.Content, 0, node)
	} else {
		list.Content = append(list.Content, node)
	}
	name := yamlnode.ScalarAt(node, "name")
	m.commands[name] = m.List(name, "command")
}

// SetContainerField sets a field of ctr (its image, a lifecycle...).
func (m *Manifest) SetContainerField(ctr, key string, value any) {
	m.t.Helper()
	yamlnode.Set(m.Container(ctr), key, encode(m.t, value))
}

// DeleteContainerField removes a field of ctr.
func (m *Manifest) DeleteContainerField(ctr, key string) {
	m.t.Helper()
	deleteKey(m.Container(ctr), key)
}

// LocalImages points every image at a local one, never pulled: the tandem
// image (a release's, or tandemImage itself) at tandemImage, as the
// init-copy pattern copies it for real, and any other at testImage.
func (m *Manifest) LocalImages(tandemImage, testImage string) {
	for _, c := range m.containers() {
		image := testImage
		if from := yamlnode.ScalarAt(c, "image"); strings.HasPrefix(from, "ghcr.io/tandem-sh/tandem:") || from == tandemImage {
			image = tandemImage
		}
		yamlnode.Set(c, "image", yamlnode.Str(image))
		yamlnode.Set(c, "imagePullPolicy", yamlnode.Str("Never"))
	}
}
