package inject

import (
	"strings"
	"testing"
)

// cluster is an API server at api and one node per runtime, each with a
// kubelet at kubelet, named a, b, ….
func cluster(api, kubelet string, runtimes ...string) ClusterVersions {
	v := ClusterVersions{APIServer: api, Kubelets: map[string]string{}, Runtimes: map[string]string{}}
	for i, r := range runtimes {
		name := string(rune('a' + i))
		v.Kubelets[name], v.Runtimes[name] = kubelet, r
	}
	return v
}

// --install auto: image-volume exactly when the API server and every
// kubelet are at 1.35 or later and every node's runtime is containerd
// 2.1+ or CRI-O 1.31+; init-copy, with the node and its version named,
// at the first that is not.
func TestChooseInstall(t *testing.T) {
	for _, tt := range []struct {
		name    string
		v       ClusterVersions
		install Install
		reason  string
		why     string
	}{
		{"containerd 2.1.0", cluster("v1.35.0", "v1.35.0", "containerd://2.1.0"), ImageVolume, ReasonAllImageVolume,
			"the API server (v1.35.0) and every node's kubelet are at v1.35 or later, and every node's runtime mounts image volumes (1 node)"},
		{"cri-o 1.31", cluster("v1.36.1", "v1.36.1", "cri-o://1.31.0"), ImageVolume, ReasonAllImageVolume, ""},
		{"containerd 2.4.2 and cri-o 1.34, v-prefixed", cluster("v1.37.2", "v1.37.2", "containerd://v2.4.2", "cri-o://1.34.1"), ImageVolume, ReasonAllImageVolume, "(2 nodes)"},
		{"containerd 1.7", cluster("v1.35.0", "v1.35.0", "containerd://1.7.27"), InitCopy, ReasonRuntimeWithout,
			"node a's runtime is containerd://1.7.27, which mounts no image volumes (containerd 2.1+ or CRI-O 1.31+)"},
		{"containerd 2.0", cluster("v1.35.0", "v1.35.0", "containerd://2.0.5"), InitCopy, ReasonRuntimeWithout, "containerd://2.0.5"},
		{"cri-o 1.30", cluster("v1.35.0", "v1.35.0", "cri-o://1.30.9"), InitCopy, ReasonRuntimeWithout, "cri-o://1.30.9"},
		{"a mixed cluster", cluster("v1.36.0", "v1.36.0", "containerd://2.1.0", "containerd://1.7.22"), InitCopy, ReasonRuntimeWithout,
			"node b's runtime is containerd://1.7.22"},
		{"docker", cluster("v1.35.0", "v1.35.0", "docker://27.1.0"), InitCopy, ReasonRuntimeWithout,
			`node a's runtime "docker://27.1.0" is not one known to mount image volumes`},
		{"API server at 1.34", cluster("v1.34.3", "v1.35.0", "containerd://2.1.0"), InitCopy, ReasonAPIServerBefore,
			"the API server is v1.34.3, before v1.35 (image volumes off by default)"},
		{"a kubelet at 1.34", cluster("v1.35.0", "v1.34.2", "containerd://2.1.0"), InitCopy, ReasonKubeletBefore, "node a's kubelet is v1.34.2, before v1.35"},
		{"no nodes", cluster("v1.35.0", "v1.35.0"), InitCopy, ReasonNoNodes, "no nodes"},
		{"an unreadable runtime version", cluster("v1.35.0", "v1.35.0", "containerd://"), InitCopy, ReasonUnreadable, `"containerd://" does not read`},
		{"an unreadable API server", cluster("", "v1.35.0", "containerd://2.1.0"), InitCopy, ReasonUnreadable, `the API server's version ""`},
	} {
		c := ChooseInstall(tt.v)
		if c.Install != tt.install || c.Reason != tt.reason || !strings.Contains(c.Why, tt.why) {
			t.Errorf("%s: %+v; want %s, %s, why with %q", tt.name, c, tt.install, tt.reason, tt.why)
		}
	}
}

// --install image-volume on a cluster that cannot mount it is refused
// with the reason; where it can, it is taken.
func TestCheckImageVolume(t *testing.T) {
	err := CheckImageVolume(cluster("v1.32.2", "v1.32.2", "containerd://1.6.20"), "--install image-volume")
	want := "--install image-volume: the API server is v1.32.2, before v1.35 (image volumes off by default); use --install init-copy, or --install auto"
	if err == nil || err.Error() != want {
		t.Errorf("%v; want %q", err, want)
	}
	if err := CheckImageVolume(cluster("v1.37.2", "v1.37.2", "containerd://2.4.2"), "--install image-volume"); err != nil {
		t.Errorf("a 1.37 cluster on containerd 2.4.2: %v; want none", err)
	}
}
