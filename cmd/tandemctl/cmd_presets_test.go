package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/presets"
)

// The table lists every preset, with its role, signal and grace.
func TestPresetsText(t *testing.T) {
	out, stderr, code := run(t, "", "presets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"NAME", "cloud-sql-connectors/cloud-sql-proxy", "http://127.0.0.1:9091/quitquitquit (with --quitquitquit)",
		"istio/proxyv2", "Verified from:", "cloud-sql-proxy: github.com/GoogleCloudPlatform/cloud-sql-proxy v2.25.3",
		"cloud-sql-proxy: quit on with --quitquitquit or CSQL_PROXY_QUITQUITQUIT=true, port from --admin-port or CSQL_PROXY_ADMIN_PORT; " +
			"ready on with --health-check or CSQL_PROXY_HEALTH_CHECK=true, port from --http-port or CSQL_PROXY_HTTP_PORT; " +
			"exit 0 on its stop signal with --exit-zero-on-sigterm or CSQL_PROXY_EXIT_ZERO_ON_SIGTERM=true",
		"daprd: quit port from --dapr-http-port",
		"fluent-bit: github.com/fluent/fluent-bit v5.1.1", "otel/opentelemetry-collector-contrib", "grafana/alloy",
		`fluent-bit: tags VERSION since 5.1.1: ["/fluent-bit/bin/fluent-bit"] ["/fluent-bit/bin/fluent-bit" "-c" "/fluent-bit/etc/fluent-bit.conf"]`,
		`vector: tags VERSION-alpine…, VERSION-distroless-static… since 0.57.0: ["/usr/local/bin/vector"] []`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	for _, p := range presets.Builtin().Presets {
		row := rows[p.Name]
		if len(row) < 3 || row[len(row)-1] != orDash(p.Grace) {
			t.Errorf("row of %s: %q; want it to end with its grace %q", p.Name, row, orDash(p.Grace))
		}
	}
	if row := rows["vector"]; !slices.Equal(row[len(row)-2:], []string{"false", "65s"}) {
		t.Errorf("vector's row %q; want not essential, grace 65s", row)
	}
}

// -o json is the table itself, as inject reads it.
func TestPresetsJSON(t *testing.T) {
	out, stderr, code := run(t, "", "presets", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got presets.Table
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(got.Presets) != len(presets.Builtin().Presets) || got.Presets[0].Name != "cloud-sql-proxy" {
		t.Errorf("got %d presets, first %q; want the built-in table", len(got.Presets), got.Presets[0].Name)
	}
}

func TestPresetsBadOutput(t *testing.T) {
	out, stderr, code := run(t, "", "presets", "-o", "yaml")
	if code != exitUsage || !strings.Contains(stderr, `--output "yaml": expected text or json`) || out != "" {
		t.Errorf("exit %d, %q, stdout %q; want exit 2, a usage error naming yaml, nothing written", code, stderr, out)
	}
}

// The example Job names its proxy by annotation; with --presets=false
// the report names no preset, and --resolve none assumes SIGTERM again.
func TestInjectPresetsFalse(t *testing.T) {
	_, stderr, code := run(t, "", "inject", "--presets=false", "--resolve", "none", "--image", "ghcr.io/tandem-sh/tandem:latest",
		filepath.Join("..", "..", "examples", "inject", "job-plain.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "preset") || !strings.Contains(stderr, "SIGTERM assumed") {
		t.Errorf("report %q; want no preset, SIGTERM assumed", stderr)
	}
}
