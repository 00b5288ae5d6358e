package presets

import (
	"strings"
	"testing"
)

// The built-in table parses, and every entry says where it was read.
func TestBuiltinIsValid(t *testing.T) {
	table := Builtin()
	if len(table.Presets) == 0 {
		t.Fatal("no presets")
	}
	for _, p := range table.Presets {
		if !strings.Contains(p.Verified.Source, "github.com/") {
			t.Errorf("preset %q: source %q names no repository", p.Name, p.Verified.Source)
		}
	}
}

func TestLookup(t *testing.T) {
	table := Builtin()
	for _, tc := range []struct {
		image, preset, tag string
	}{
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3", "cloud-sql-proxy", "2.25.3"},
		{"us-docker.pkg.dev/cloud-sql-connectors/gcr.io/cloud-sql-connectors/cloud-sql-proxy@sha256:0123", "cloud-sql-proxy", ""},
		{"mirror.example:5000/cloud-sql-connectors/cloud-sql-proxy:2.25.3@sha256:0123", "cloud-sql-proxy", "2.25.3"},
		{"localhost:5000/cloud-sql-connectors/cloud-sql-proxy", "cloud-sql-proxy", ""},
		{"docker.io/istio/proxyv2:1.24.0", "istio-proxy", "1.24.0"},
		{"istio/proxyv2:1.24.0-distroless", "istio-proxy", "1.24.0-distroless"},
		{"cr.l5d.io/linkerd/proxy:edge-24.11.8", "linkerd-proxy", "edge-24.11.8"},
		{"Docker.io/HashiCorp/Consul-Dataplane:1.6", "consul-dataplane", "1.6"},
		{"gcr.io/not-cloud-sql-connectors/cloud-sql-proxy:2", "", ""},
		{"istio/proxyv2-fork:1", "", ""},
		{"registry:5000/proxy:2", "", ""},
	} {
		m, ok := table.Lookup(tc.image)
		if tc.preset == "" {
			if ok {
				t.Errorf("%s matched preset %q; want none", tc.image, m.Name)
			}
			continue
		}
		if !ok || m.Name != tc.preset || m.Tag != tc.tag {
			t.Errorf("%s: matched %v (%q, tag %q); want %q, tag %q", tc.image, ok, m.Name, m.Tag, tc.preset, tc.tag)
		}
	}
}

func TestNewerThanVerified(t *testing.T) {
	table := Builtin()
	for _, tc := range []struct {
		image string
		newer bool
	}{
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3", false},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy:v2.25.4", true},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.26", true},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy:3.0.0-alpine", true},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1", false},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy:latest", false},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy@sha256:0123", false},
		{"istio/proxyv2:99.0.0", false}, // read at a commit: no version to compare
	} {
		m, _ := table.Lookup(tc.image)
		if got := m.NewerThanVerified(); got != tc.newer {
			t.Errorf("%s: newer %v; want %v", tc.image, got, tc.newer)
		}
	}
}

func TestEndpointApplies(t *testing.T) {
	quit := &Endpoint{URL: "http://127.0.0.1:9091/quitquitquit", WhenArg: "--quitquitquit"}
	for _, tc := range []struct {
		argv []string
		want bool
	}{
		{[]string{"/cloud-sql-proxy", "--quitquitquit", "p:r:i"}, true},
		{[]string{"/cloud-sql-proxy", "--quitquitquit=true"}, true},
		{[]string{"/cloud-sql-proxy", "--quitquitquit=false"}, false},
		{[]string{"/cloud-sql-proxy", "p:r:i"}, false},
	} {
		if got := quit.Applies(tc.argv, nil); got != tc.want {
			t.Errorf("%v: applies %v; want %v", tc.argv, got, tc.want)
		}
	}
	shutdown := &Endpoint{URL: "http://127.0.0.1:4191/shutdown", WhenEnv: "LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED"}
	if shutdown.Applies(nil, map[string]string{}) || !shutdown.Applies(nil, map[string]string{"LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED": "true"}) {
		t.Error("linkerd's /shutdown: want it only when its variable is true")
	}
	var none *Endpoint
	if none.Applies(nil, nil) {
		t.Error("no endpoint applies")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"presets": [{"name": "x"}]}`, `preset "x": expected a name, repositories, a stopSignal and verified.source`},
		{`{"presets": [{"name": "x", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}, "quit": {"url": "https://x"}}]}`, "quit.url an http:// URL"},
		{`{"presets": [{"name": "x", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}}, {"name": "y", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}}]}`, `repository "a/b" is in presets "x" and "y"`},
		{`{"presets": [], "extra": 1}`, `unknown field "extra"`},
	} {
		_, err := Parse([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s): %v; want an error saying %q", tc.data, err, tc.want)
		}
	}
}
