package inject

import (
	"strings"
	"testing"
)

// --mode auto: native exactly when the API server and every kubelet are
// at 1.29 or later, whatever the vendor's suffix; classic, with the node
// and its version named, at the first that is not.
func TestChooseMode(t *testing.T) {
	nodes := func(versions ...string) map[string]string {
		m := map[string]string{}
		for i, v := range versions {
			m[string(rune('a'+i))] = v
		}
		return m
	}
	for _, tt := range []struct {
		name   string
		v      ClusterVersions
		mode   Mode
		reason string
		why    string
	}{
		{"all at 1.29.0", ClusterVersions{"v1.29.0", nodes("v1.29.0"), nil}, Native, ReasonAllNative, "the API server (v1.29.0) and every node's kubelet (1 node) are at v1.29 or later"},
		{"vendors' suffixes", ClusterVersions{"v1.30.1-gke.1589000", nodes("v1.29.0-eks-5e0fdde", "v1.31.2+k3s1", "v1.37.0"), nil}, Native, ReasonAllNative, "(3 nodes)"},
		{"a 1.29 pre-release", ClusterVersions{"v1.29.0-rc.1", nodes("v1.29.0-alpha.3"), nil}, Native, ReasonAllNative, ""},
		{"a 2.x", ClusterVersions{"v2.0.0", nodes("v2.1.0"), nil}, Native, ReasonAllNative, ""},
		{"API server at 1.28.15", ClusterVersions{"v1.28.15", nodes("v1.29.0"), nil}, Classic, ReasonOldAPIServer, "the API server is v1.28.15, before v1.29"},
		{"one kubelet at 1.28", ClusterVersions{"v1.30.0", nodes("v1.30.0", "v1.28.9", "v1.27.1"), nil}, Classic, ReasonOldKubelet, "node b's kubelet is v1.28.9, before v1.29"},
		{"1.3 is not 1.30", ClusterVersions{"v1.3.0", nodes("v1.30.0"), nil}, Classic, ReasonOldAPIServer, ""},
		{"no nodes", ClusterVersions{"v1.32.2", nil, nil}, Classic, ReasonNoNodes, "no nodes"},
		{"an unreadable kubelet", ClusterVersions{"v1.32.2", nodes("v1.32.2", "unknown"), nil}, Classic, ReasonUnreadable, `node b's kubelet version "unknown"`},
		{"an unreadable API server", ClusterVersions{"", nodes("v1.32.2"), nil}, Classic, ReasonUnreadable, `the API server's version ""`},
		{"a minor that is not a number", ClusterVersions{"v1.x", nodes("v1.32.2"), nil}, Classic, ReasonUnreadable, ""},
	} {
		c := ChooseMode(tt.v)
		if c.Mode != tt.mode || c.Reason != tt.reason || !strings.Contains(c.Why, tt.why) {
			t.Errorf("%s: %+v; want %s, %s, why with %q", tt.name, c, tt.mode, tt.reason, tt.why)
		}
	}
}

// --mode native on a cluster older than 1.29 is refused with the reason;
// on a newer one it is taken.
func TestCheckNative(t *testing.T) {
	err := CheckNative(ClusterVersions{"v1.30.0", map[string]string{"old": "v1.28.0"}, nil}, "--mode native")
	want := "--mode native: node old's kubelet is v1.28.0, before v1.29 (native sidecars off by default); use --mode classic, or --mode auto"
	if err == nil || err.Error() != want {
		t.Errorf("%v; want %q", err, want)
	}
	if err := CheckNative(ClusterVersions{"v1.29.1", map[string]string{"n": "v1.29.1"}, nil}, "--mode native"); err != nil {
		t.Errorf("a 1.29 cluster: %v; want none", err)
	}
	// No node read: the API server's release decides, either way.
	if err := CheckNative(ClusterVersions{APIServer: "v1.29.1"}, "TANDEMCTL_MODE native"); err != nil {
		t.Errorf("a 1.29 API server, no node read: %v; want none", err)
	}
	err = CheckNative(ClusterVersions{APIServer: "v1.27.16"}, "TANDEMCTL_MODE native")
	if want := "TANDEMCTL_MODE native: the API server is v1.27.16, before v1.29"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a 1.27 API server, no node read: %v; want %q", err, want)
	}
}

func TestParseModeAuto(t *testing.T) {
	if m, err := ParseMode("auto"); m != Auto || err != nil {
		t.Errorf("auto: %q, %v", m, err)
	}
	if _, err := ParseMode("natve"); err == nil || err.Error() != `mode "natve": expected classic, native or auto` {
		t.Errorf("natve: %v", err)
	}
}
