package inject

import (
	"fmt"
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
	d, on := nativeGate.choose(v, "the cluster has no nodes whose kubelet version could be read",
		func(name string) (verdict, bool) { return nativeGate.kubelet(name, v.Kubelets[name]) },
		func(nodes string) verdict {
			return verdict{fmt.Sprintf("the API server (%s) and every node's kubelet (%s) are at %s or later", v.APIServer, nodes, NativeSince),
				ReasonAllNative}
		})
	if on {
		return ModeChoice{Native, d.why, d.reason}
	}
	return ModeChoice{Classic, d.why, d.reason}
}

// nativeGate is native sidecars' feature gate, SidecarContainers.
var nativeGate = featureGate{since: NativeSince, minor: nativeMinor, off: "native sidecars off by default",
	oldAPIServer: ReasonOldAPIServer, oldNodes: ReasonOldKubelet}

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
