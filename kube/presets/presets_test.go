package presets

import (
	"strings"
	"testing"
	"time"
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
		{"cr.fluentbit.io/fluent/fluent-bit:5.1.1-debug", "fluent-bit", "5.1.1-debug"},
		{"public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32.3", "aws-for-fluent-bit", "2.32.3"},
		{"ghcr.io/vectordotdev/vector:0.57.0-alpine", "vector", "0.57.0-alpine"},
		{"timberio/vector:0.57.0-debian", "vector", "0.57.0-debian"},
		{"otel/opentelemetry-collector-contrib:0.159.0", "otel-collector-contrib", "0.159.0"},
		{"ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector:0.159.0", "otel-collector", "0.159.0"},
		{"ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-k8s:0.159.0", "otel-collector-k8s", "0.159.0"},
		{"fluent/fluentd-kubernetes-daemonset:v1.19.3-debian-forward-1.1", "fluentd-kubernetes-daemonset", "v1.19.3-debian-forward-1.1"},
		{"grafana/alloy:v1.18.1", "alloy", "v1.18.1"},
		{"otel/opentelemetry-collector-otlp:0.159.0", "", ""},
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

// A release older than the one read is said to be; anything else is not.
func TestOlderThanVerified(t *testing.T) {
	table := Builtin()
	for image, older := range map[string]bool{
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1":      true,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:v2.25":       false, // 2.25.0
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3":      false,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.26.0":      false,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:latest":      false,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy@sha256:0123": false,
		"istio/proxyv2:1.0.0": false, // read at a commit
	} {
		m, _ := table.Lookup(image)
		if got := m.OlderThanVerified(); got != older {
			t.Errorf("%s: older %v; want %v", image, got, older)
		}
	}
}

func TestEndpointFor(t *testing.T) {
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
		if _, got, _ := quit.For(tc.argv, nil); got != tc.want {
			t.Errorf("%v: applies %v; want %v", tc.argv, got, tc.want)
		}
	}
	shutdown := &Endpoint{URL: "http://127.0.0.1:4191/shutdown", WhenEnv: "LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED"}
	_, off, _ := shutdown.For(nil, map[string]string{})
	_, on, _ := shutdown.For(nil, map[string]string{"LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED": "true"})
	if off || !on {
		t.Error("linkerd's /shutdown: want it only when its variable is true")
	}
	var none *Endpoint
	if _, ok, _ := none.For(nil, nil); ok {
		t.Error("no endpoint applies")
	}
}

// The built-in cloud-sql-proxy's endpoints follow the ports and switches
// its own flags and CSQL_PROXY_ variables set, flags first; daprd's quit
// call follows --dapr-http-port.
func TestEndpointPorts(t *testing.T) {
	table := Builtin()
	sql, _ := table.Lookup("gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3")
	dapr, _ := table.Lookup("daprio/daprd:1.15.0")
	alloy, _ := table.Lookup("grafana/alloy:v1.18.1")
	for _, tc := range []struct {
		name      string
		e         *Endpoint
		argv      []string
		env       map[string]string
		want      string
		wantOK    bool
		wantError string
	}{
		{"defaults", sql.Ready, []string{"/p", "--health-check"}, nil, "http://127.0.0.1:9090/startup", true, ""},
		{"--http-port N", sql.Ready, []string{"/p", "--health-check", "--http-port", "9191", "p:r:i"}, nil, "http://127.0.0.1:9191/startup", true, ""},
		{"--http-port=N", sql.Ready, []string{"/p", "--http-port=9191", "--health-check"}, nil, "http://127.0.0.1:9191/startup", true, ""},
		{"variables", sql.Ready, []string{"/p"}, map[string]string{"CSQL_PROXY_HEALTH_CHECK": "true", "CSQL_PROXY_HTTP_PORT": "9292"}, "http://127.0.0.1:9292/startup", true, ""},
		{"the flag wins", sql.Ready, []string{"/p", "--health-check", "--http-port=9191"}, map[string]string{"CSQL_PROXY_HTTP_PORT": "9292"}, "http://127.0.0.1:9191/startup", true, ""},
		{"switched off by flag", sql.Ready, []string{"/p", "--health-check=false"}, map[string]string{"CSQL_PROXY_HEALTH_CHECK": "true"}, "", false, ""},
		{"--admin-port", sql.Quit, []string{"/p", "--quitquitquit", "--admin-port", "9192"}, nil, "http://127.0.0.1:9192/quitquitquit", true, ""},
		{"quit by variables", sql.Quit, []string{"/p"}, map[string]string{"CSQL_PROXY_QUITQUITQUIT": "true", "CSQL_PROXY_ADMIN_PORT": "9193"}, "http://127.0.0.1:9193/quitquitquit", true, ""},
		{"not a port", sql.Quit, []string{"/p", "--quitquitquit", "--admin-port=$(PORT)"}, nil, "", false, `--admin-port "$(PORT)": not a port number`},
		{"daprd default", dapr.Quit, []string{"/daprd"}, nil, "http://127.0.0.1:3500/v1.0/shutdown", true, ""},
		{"--dapr-http-port", dapr.Quit, []string{"/daprd", "--dapr-http-port", "3501"}, nil, "http://127.0.0.1:3501/v1.0/shutdown", true, ""},
		{"alloy default", alloy.Ready, []string{"/bin/alloy", "run"}, nil, "http://127.0.0.1:12345/-/ready", true, ""},
		{"an address's wildcard host", alloy.Ready, []string{"/bin/alloy", "run", "--server.http.listen-addr=0.0.0.0:9999"}, nil, "http://127.0.0.1:9999/-/ready", true, ""},
		{"an address without host", alloy.Ready, []string{"/bin/alloy", "run", "--server.http.listen-addr", ":8888"}, nil, "http://127.0.0.1:8888/-/ready", true, ""},
		{"an address's IPv6 wildcard", alloy.Ready, []string{"/bin/alloy", "run", "--server.http.listen-addr=[::]:9999"}, nil, "http://127.0.0.1:9999/-/ready", true, ""},
		{"an address's host", alloy.Ready, []string{"/bin/alloy", "run", "--server.http.listen-addr=localhost:7777"}, nil, "http://localhost:7777/-/ready", true, ""},
		{"an address without port", alloy.Ready, []string{"/bin/alloy", "run", "--server.http.listen-addr=0.0.0.0:"}, nil, "", false, `--server.http.listen-addr "0.0.0.0:": not a port number`},
	} {
		got, ok, err := tc.e.For(tc.argv, tc.env)
		if got != tc.want || ok != tc.wantOK || (err == nil) != (tc.wantError == "") || err != nil && err.Error() != tc.wantError {
			t.Errorf("%s: %q, %v, %v; want %q, %v, %q", tc.name, got, ok, err, tc.want, tc.wantOK, tc.wantError)
		}
	}
}

// --exit-zero-on-sigterm, or its variable, makes cloud-sql-proxy exit 0.
func TestExitZero(t *testing.T) {
	sql, _ := Builtin().Lookup("gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3")
	if sql.ExitZero.On([]string{"/p"}, nil) || !sql.ExitZero.On([]string{"/p", "--exit-zero-on-sigterm"}, nil) ||
		!sql.ExitZero.On(nil, map[string]string{"CSQL_PROXY_EXIT_ZERO_ON_SIGTERM": "true"}) {
		t.Error("want exit 0 with --exit-zero-on-sigterm or CSQL_PROXY_EXIT_ZERO_ON_SIGTERM=true only")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"presets": [{"name": "x"}]}`, `preset "x": expected a name, repositories, a stopSignal and verified.source`},
		{`{"presets": [{"name": "x", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}, "quit": {"url": "https://x"}}]}`, "quit.url an http:// URL"},
		{`{"presets": [{"name": "x", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}}, {"name": "y", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}}]}`, `repository "a/b" is in presets "x" and "y"`},
		{`{"presets": [], "extra": 1}`, `unknown field "extra"`},
		{`{"presets": [{"name": "x", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}, "grace": "10"}]}`, `preset "x": grace "10": expected a duration above zero`},
		{`{"presets": [{"name": "x", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}, "images": [{"since": "latest", "suffixes": [""], "entrypoint": ["/x"]}]}]}`, `preset "x": images: since "latest"`},
		{`{"presets": [{"name": "x", "repositories": ["a/b"], "stopSignal": "TERM", "verified": {"source": "s"}, "images": [{"since": "1.0.0", "suffixes": [""]}]}]}`, `expected a release, at least one suffix and an entrypoint`},
	} {
		_, err := Parse([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s): %v; want an error saying %q", tc.data, err, tc.want)
		}
	}
}

// An image's ENTRYPOINT and CMD come from the preset only for the tags
// the Dockerfile it read builds: not a debug variant, not a tag that
// names no variant when the variants differ, not an older release, not
// latest or a digest alone.
func TestMatchImage(t *testing.T) {
	table := Builtin()
	for _, tc := range []struct {
		image      string
		entrypoint string // "" for none
		cmd        int
	}{
		{"fluent/fluent-bit:5.1.1", "/fluent-bit/bin/fluent-bit", 3},
		{"cr.fluentbit.io/fluent/fluent-bit:5.2.0", "/fluent-bit/bin/fluent-bit", 3},
		{"fluent/fluent-bit:5.1", "/fluent-bit/bin/fluent-bit", 3}, // the series, not older
		{"fluent/fluent-bit:5.1.1-debug", "", 0},
		{"fluent/fluent-bit:5.0.0", "", 0},
		{"fluent/fluent-bit:latest", "", 0},
		{"fluent/fluent-bit@sha256:0123", "", 0},
		{"timberio/vector:0.57.0-debian", "/usr/bin/vector", 0},
		{"timberio/vector:0.57.0-distroless-libc", "/usr/bin/vector", 0},
		{"ghcr.io/vectordotdev/vector:0.58.1-alpine", "/usr/local/bin/vector", 0},
		{"timberio/vector:0.57.0-distroless-static", "/usr/local/bin/vector", 0},
		{"timberio/vector:0.57.0", "", 0},
		{"docker.io/istio/proxyv2:1.27.1", "/usr/local/bin/pilot-agent", 0},
		{"istio/proxyv2:1.27.1-distroless", "", 0},
		{"istio/proxyv2:1.26.3", "", 0},
		{"fluent/fluentd:v1.19.3-debian-1.0", "tini", 1},
		{"fluent/fluentd:v1.19.3-debian-arm64-1.0", "", 0},
		{"fluent/fluentd-kubernetes-daemonset:v1.19.3-debian-forward-1.1", "tini", 0},
		{"fluent/fluentd-kubernetes-daemonset:v1.19.3-debian-kafka2-1.1", "", 0},
		{"otel/opentelemetry-collector-k8s:0.159.0", "/otelcol-k8s", 0},
		{"grafana/alloy:v1.18.1", "/bin/alloy", 3},
		{"amazon/aws-for-fluent-bit:2.32.3", "", 0}, // a shell-form CMD, no ENTRYPOINT
		{"daprio/daprd:1.18.3", "", 0},
		{"cr.l5d.io/linkerd/proxy:edge-26.8.3", "", 0},
	} {
		m, ok := table.Lookup(tc.image)
		if !ok {
			t.Fatalf("%s: no preset", tc.image)
		}
		im, found := m.Image()
		got := ""
		if found {
			got = im.Entrypoint[0]
		}
		if got != tc.entrypoint || len(im.Cmd) != tc.cmd {
			t.Errorf("%s: entrypoint %q, cmd %q; want %q first, %d in cmd", tc.image, im.Entrypoint, im.Cmd, tc.entrypoint, tc.cmd)
		}
	}
}

// The shippers are sidecars no main needs, each with the grace it needs
// to flush.
func TestShipperPresets(t *testing.T) {
	table := Builtin()
	for image, grace := range map[string]time.Duration{
		"fluent/fluent-bit:5.1.1":                10 * time.Second,
		"amazon/aws-for-fluent-bit:2.32.3":       10 * time.Second,
		"fluent/fluentd:v1.19.3-debian-1.0":      30 * time.Second,
		"timberio/vector:0.57.0-debian":          65 * time.Second,
		"otel/opentelemetry-collector:0.159.0":   30 * time.Second,
		"grafana/alloy:v1.18.1":                  65 * time.Second,
		"fluent/fluentd-kubernetes-daemonset:v1": 30 * time.Second,
	} {
		m, _ := table.Lookup(image)
		if got, ok := m.StopGrace(); !ok || got != grace || m.Essential || m.StopSignal != "TERM" {
			t.Errorf("%s: preset %q, grace %s (%v), essential %v, signal %s; want grace %s, not essential, TERM", image, m.Name, got, ok, m.Essential, m.StopSignal, grace)
		}
	}
	if _, ok := (&Preset{}).StopGrace(); ok {
		t.Error("a preset without grace has one")
	}
}
