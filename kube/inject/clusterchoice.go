package inject

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/version"
)

// featureGate is a Kubernetes feature that --mode auto or --install auto
// uses only where the API server and every node's kubelet have it on by
// default.
type featureGate struct {
	since string // the release it is on by default from, "v1.29"
	minor uint   // since's minor release
	// off says what is off before since; the reasons name each component
	// too old.
	off                    string
	oldAPIServer, oldNodes string
}

// verdict is why auto chooses as it does, in words and as a reason.
type verdict struct{ why, reason string }

// component is what the version v of a component says of the gate: whose
// (the API server's, node X's kubelet) and who (as the subject) name it;
// ok when the feature is on there.
func (g featureGate) component(whose, who, v, oldReason string) (verdict, bool) {
	if ok, parsed := atLeast(v, 1, g.minor); !parsed {
		return verdict{fmt.Sprintf("%s version %q does not read as vMAJOR.MINOR", whose, v), ReasonUnreadable}, false
	} else if !ok {
		return verdict{fmt.Sprintf("%s is %s, before %s (%s)", who, v, g.since, g.off), oldReason}, false
	}
	return verdict{}, true
}

// choose is how auto reads a cluster for the gate: the API server first,
// then each node in name order (node says whether the feature works
// there); the first that keeps it off gives the verdict; a cluster with no
// nodes keeps it off, as noNodes says. Else the feature is on, as all
// says of the cluster's nodes ("1 node", "3 nodes").
func (g featureGate) choose(v ClusterVersions, noNodes string, node func(name string) (verdict, bool),
	all func(nodes string) verdict) (verdict, bool) {
	if d, ok := g.component("the API server's", "the API server", v.APIServer, g.oldAPIServer); !ok {
		return d, false
	}
	if len(v.Kubelets) == 0 {
		return verdict{noNodes, ReasonNoNodes}, false
	}
	names := slices.Sorted(maps.Keys(v.Kubelets))
	for _, name := range names {
		if d, ok := node(name); !ok {
			return d, false
		}
	}
	nodes := fmt.Sprintf("%d nodes", len(names))
	if len(names) == 1 {
		nodes = "1 node"
	}
	return all(nodes), true
}

// kubelet is what node name's kubelet version says of the gate.
func (g featureGate) kubelet(name, v string) (verdict, bool) {
	return g.component(fmt.Sprintf("node %s's kubelet", name), fmt.Sprintf("node %s's kubelet", name), v, g.oldNodes)
}

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
