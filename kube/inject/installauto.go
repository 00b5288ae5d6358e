package inject

import (
	"fmt"
	"strings"
)

// ImageVolumeSince is the Kubernetes release where the ImageVolume
// feature gate is on by default (beta; GA from 1.36): the API server keeps
// an image volume and the kubelet mounts it.
const ImageVolumeSince = "v1.35"

const imageVolumeMinor = 35

// imageVolumeRuntimes are the first releases of the container runtimes
// that mount image volumes, by the name a node reports for its runtime.
var imageVolumeRuntimes = map[string]struct{ major, minor uint }{
	"containerd": {2, 1},
	"cri-o":      {1, 31},
}

// InstallChoice is the install a cluster allows, and why, in words for a
// report line; Reason is one word for a metric's label.
type InstallChoice struct {
	Install Install
	Why     string
	Reason  string
}

// The reasons of an InstallChoice, besides ReasonNoNodes, ReasonUnreadable
// and ReasonFlag.
const (
	ReasonAllImageVolume   = "all-with-image-volumes"
	ReasonAPIServerBefore  = "api-server-before-1.35"
	ReasonKubeletBefore    = "kubelet-before-1.35"
	ReasonRuntimeWithout   = "runtime-without-image-volumes"
	ReasonOfflineInitCopy  = "offline"
	imageVolumeRuntimeList = "containerd 2.1+ or CRI-O 1.31+"
)

// ChooseInstall is --install auto: image-volume when the API server and
// every node's kubelet are at ImageVolumeSince or later and every node's
// runtime mounts image volumes, else init-copy, which works everywhere. A
// pod with an image volume on a node that cannot mount it never starts.
func ChooseInstall(v ClusterVersions) InstallChoice {
	d, on := imageVolumeGate.choose(v, "the cluster has no nodes whose versions could be read",
		func(name string) (verdict, bool) { return nodeInstall(name, v.Kubelets[name], v.Runtimes[name]) },
		func(nodes string) verdict {
			return verdict{fmt.Sprintf("the API server (%s) and every node's kubelet are at %s or later, and every node's runtime mounts image volumes (%s)",
				v.APIServer, ImageVolumeSince, nodes), ReasonAllImageVolume}
		})
	if on {
		return InstallChoice{ImageVolume, d.why, d.reason}
	}
	return InstallChoice{InitCopy, d.why, d.reason}
}

// imageVolumeGate is image volumes' feature gate, ImageVolume.
var imageVolumeGate = featureGate{since: ImageVolumeSince, minor: imageVolumeMinor, off: "image volumes off by default",
	oldAPIServer: ReasonAPIServerBefore, oldNodes: ReasonKubeletBefore}

// nodeInstall is what node name's kubelet and runtime say of image
// volumes: ok when it mounts them.
func nodeInstall(name, kubelet, runtime string) (verdict, bool) {
	if d, ok := imageVolumeGate.kubelet(name, kubelet); !ok {
		return d, false
	}
	kind, version, found := strings.Cut(runtime, "://")
	first, known := imageVolumeRuntimes[strings.ToLower(kind)]
	if !found || !known {
		return verdict{fmt.Sprintf("node %s's runtime %q is not one known to mount image volumes (%s)", name, runtime, imageVolumeRuntimeList),
			ReasonRuntimeWithout}, false
	}
	if ok, parsed := atLeast(version, first.major, first.minor); !parsed {
		return verdict{fmt.Sprintf("node %s's runtime version %q does not read as NAME://MAJOR.MINOR", name, runtime), ReasonUnreadable}, false
	} else if !ok {
		return verdict{fmt.Sprintf("node %s's runtime is %s, which mounts no image volumes (%s)", name, runtime, imageVolumeRuntimeList),
			ReasonRuntimeWithout}, false
	}
	return verdict{}, true
}

// CheckImageVolume refuses image-volume, as given (--install image-volume,
// or its variable), on a cluster that ChooseInstall would give init-copy,
// with the reason.
func CheckImageVolume(v ClusterVersions, given string) error {
	if c := ChooseInstall(v); c.Install != ImageVolume {
		return fmt.Errorf("%s: %s; use --install init-copy, or --install auto", given, c.Why)
	}
	return nil
}
