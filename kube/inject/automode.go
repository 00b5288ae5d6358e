package inject

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/version"
)

// NativeSince is the Kubernetes release where the SidecarContainers
// feature gate is on by default: the API server keeps an init container's
// restartPolicy and the kubelet runs it as a native sidecar.
const NativeSince = "v1.29"

const nativeMinor = 29

// ClusterVersions are what decides a cluster's mode and install: the API
// server's version, and each node's kubelet version and container
// runtime version (containerd://2.1.0, as the node reports it), by node
// name.
type ClusterVersions struct {
	APIServer string
	Kubelets  map[string]string
	Runtimes  map[string]string
}

// ModeChoice is the mode a cluster allows, and why, in words for a report
// line; Reason is one word for a metric's label.
type ModeChoice struct {
	Mode   Mode
	Why    string
	Reason string
}

// The reasons of a ModeChoice.
const (
	ReasonAllNative    = "all-at-1.29-or-later"
	ReasonOldAPIServer = "api-server-before-1.29"
	ReasonOldKubelet   = "kubelet-before-1.29"
	ReasonNoNodes      = "no-nodes"
	ReasonUnreadable   = "version-unreadable"
	// ReasonFlag: the mode is the one --mode named, not chosen.
	ReasonFlag = "flag"
)

// ChooseMode is --mode auto: native when the API server and every node's
// kubelet are at NativeSince or later, else classic, which works
// everywhere. A cluster with no nodes, or a version that does not parse,
// is classic too: native mode on a kubelet without native sidecars would
// run the sidecar to completion before the mains, and the pod would never
// start its work.
func ChooseMode(v ClusterVersions) ModeChoice {
	if ok, parsed := atLeastNative(v.APIServer); !parsed {
		return ModeChoice{Classic, fmt.Sprintf("the API server's version %q does not read as vMAJOR.MINOR", v.APIServer), ReasonUnreadable}
	} else if !ok {
		return ModeChoice{Classic, fmt.Sprintf("the API server is %s, before %s (native sidecars off by default)", v.APIServer, NativeSince), ReasonOldAPIServer}
	}
	if len(v.Kubelets) == 0 {
		return ModeChoice{Classic, "the cluster has no nodes whose kubelet version could be read", ReasonNoNodes}
	}
	names := make([]string, 0, len(v.Kubelets))
	for name := range v.Kubelets {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		version := v.Kubelets[name]
		if ok, parsed := atLeastNative(version); !parsed {
			return ModeChoice{Classic, fmt.Sprintf("node %s's kubelet version %q does not read as vMAJOR.MINOR", name, version), ReasonUnreadable}
		} else if !ok {
			return ModeChoice{Classic, fmt.Sprintf("node %s's kubelet is %s, before %s (native sidecars off by default)", name, version, NativeSince), ReasonOldKubelet}
		}
	}
	nodes := fmt.Sprintf("%d nodes", len(names))
	if len(names) == 1 {
		nodes = "1 node"
	}
	return ModeChoice{Native, fmt.Sprintf("the API server (%s) and every node's kubelet (%s) are at %s or later", v.APIServer, nodes, NativeSince), ReasonAllNative}
}

// CheckNative refuses native mode, as given (--mode native, or its
// variable), on a cluster that ChooseMode would give classic, with the
// reason. A cluster whose nodes could not be read is judged by its API
// server alone: its release is what keeps the sidecars' restartPolicy.
func CheckNative(v ClusterVersions, given string) error {
	if c := ChooseMode(v); c.Mode != Native && c.Reason != ReasonNoNodes {
		return fmt.Errorf("%s: %s; use --mode classic, or --mode auto", given, c.Why)
	}
	return nil
}

// atLeastNative: version (as the API server and the kubelet report it)
// is at NativeSince or later, and it parsed.
func atLeastNative(version string) (ok, parsed bool) { return atLeast(version, 1, nativeMinor) }

// atLeast reads a version as Kubernetes components and container runtimes
// report it (v1.29.3, v1.30.1-gke.1589000, v1.29.0-eks-5e0fdde,
// v1.31.2+k3s1, 1.29, 2.1.0), as apimachinery's generic versions read
// them: whether it is at major.minor or later, and whether it parsed. A
// pre-release (v1.29.0-rc.1) counts as its release: its feature gates'
// defaults are that release's.
func atLeast(v string, major, minor uint) (ok, parsed bool) {
	got, err := version.ParseGeneric(v)
	if err != nil {
		return false, false
	}
	return got.AtLeast(version.MajorMinor(major, minor)), true
}
