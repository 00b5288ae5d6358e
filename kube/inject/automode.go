package inject

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// NativeSince is the Kubernetes release where the SidecarContainers
// feature gate is on by default: the API server keeps an init container's
// restartPolicy and the kubelet runs it as a native sidecar.
const NativeSince = "v1.29"

const nativeMinor = 29

// ClusterVersions are what decides a cluster's mode: the API server's
// version and each node's kubelet version, by node name.
type ClusterVersions struct {
	APIServer string
	Kubelets  map[string]string
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

// CheckNative refuses --mode native on a cluster that ChooseMode would
// give classic, with the reason.
func CheckNative(v ClusterVersions) error {
	if c := ChooseMode(v); c.Mode != Native {
		return fmt.Errorf("--mode native: %s; use --mode classic, or --mode auto", c.Why)
	}
	return nil
}

// atLeastNative reads a Kubernetes version as the API server and the
// kubelet report it (v1.29.3, v1.30.1-gke.1589000, v1.29.0-eks-5e0fdde,
// v1.31.2+k3s1, 1.29): whether it is at NativeSince or later, and whether
// it parsed. A pre-release of 1.29 (v1.29.0-rc.1) counts as 1.29: its
// feature gates' defaults are that release's.
func atLeastNative(version string) (ok, parsed bool) {
	major, rest, found := strings.Cut(strings.TrimPrefix(strings.TrimSpace(version), "v"), ".")
	if !found {
		return false, false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	maj, err1 := strconv.Atoi(major)
	minor, err2 := strconv.Atoi(rest[:end])
	if err1 != nil || err2 != nil || end == 0 {
		return false, false
	}
	return maj > 1 || (maj == 1 && minor >= nativeMinor), true
}
