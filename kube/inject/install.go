package inject

import (
	"fmt"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Install is how the tandem binary reaches the wrapped containers.
type Install string

const (
	// InitCopy copies the binary into the tandem emptyDir with an init
	// container (tandem-install): every cluster. The zero Install is this.
	InitCopy Install = "init-copy"
	// ImageVolume mounts the tandem image itself as a read-only image
	// volume (Kubernetes 1.35+, containerd 2.1+ or CRI-O 1.31+): no init
	// container, no copy, one init step less before the pod's own.
	ImageVolume Install = "image-volume"
	// InstallAuto is image-volume where the cluster's versions allow it,
	// else init-copy (ChooseInstall): for the command line, never an
	// Options.Install.
	InstallAuto Install = "auto"
)

// ParseInstall reads --install.
func ParseInstall(s string) (Install, error) {
	switch Install(s) {
	case ImageVolume, InitCopy, InstallAuto:
		return Install(s), nil
	}
	return "", fmt.Errorf("install %q: expected image-volume, init-copy or auto", s)
}

// The names the image-volume install adds to a pod, besides the tandem
// emptyDir (VolumeName at MountPath), which keeps the done, ready and
// stopped files in both installs: an image volume is read-only.
const (
	BinVolumeName = "tandem-bin"
	BinMountPath  = "/run/tandem-bin"
)

// BinaryPath is where the wrapped containers run tandem from.
func (i Install) BinaryPath() string {
	if i == ImageVolume {
		return BinMountPath + "/tandem"
	}
	return binary
}

// volumes are the pod volumes the install adds: the tandem emptyDir, and
// for image-volume the tandem image, which must hold /tandem. IfNotPresent
// because a tag such as :latest would otherwise be pulled at each start.
func (i Install) volumes(image string) []*yaml.Node {
	emptyDir := yamlnode.Mapping("name", VolumeName,
		"emptyDir", &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle})
	if i != ImageVolume {
		return []*yaml.Node{emptyDir}
	}
	return []*yaml.Node{emptyDir, yamlnode.Mapping("name", BinVolumeName,
		"image", yamlnode.Mapping("reference", image, "pullPolicy", "IfNotPresent"))}
}

// mounts are the volume mounts of a wrapped container.
func (i Install) mounts() []*yaml.Node {
	files := yamlnode.Mapping("name", VolumeName, "mountPath", MountPath)
	if i != ImageVolume {
		return []*yaml.Node{files}
	}
	// An image volume is read-only whatever the mount says: said, for
	// the reader and for policies that check the mounts.
	bin := yamlnode.Mapping("name", BinVolumeName, "mountPath", BinMountPath,
		"readOnly", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	return []*yaml.Node{files, bin}
}
