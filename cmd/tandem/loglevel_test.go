package main

import "testing"

// TestLogLevelDefaults: run (and the bare form) logs at warn unless told,
// as quiet as tini when all goes well; the other commands at info.
func TestLogLevelDefaults(t *testing.T) {
	jsonLogs := map[string]string{"TANDEM_LOG_FORMAT": "json"}
	for _, tt := range []struct {
		name     string
		env      map[string]string
		args     []string
		wantInfo bool
	}{
		{"run", jsonLogs, []string{"run", "--", "x"}, false},
		{"bare form", jsonLogs, []string{"--", "x"}, false},
		{"run told info", jsonLogs, []string{"run", "--log-level", "info", "--", "x"}, true},
		{"run told info before run", jsonLogs, []string{"--log-level", "info", "run", "--", "x"}, true},
		{"run told info by env", map[string]string{"TANDEM_LOG_FORMAT": "json", "TANDEM_LOG_LEVEL": "info"}, []string{"run", "--", "x"}, true},
		{"sidecar", jsonLogs, []string{"sidecar", "--", "x"}, true},
		{"main", jsonLogs, []string{"main", "--", "x"}, true},
		{"done", jsonLogs, []string{"done", "--done-file", "/d"}, true},
		{"wait", jsonLogs, []string{"wait", "--for", "file:/x"}, true},
		{"sidecar told warn", jsonLogs, []string{"sidecar", "--log-level", "warn", "--", "x"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runApp(t, tt.env, tt.args...)
			if err != nil {
				t.Fatalf("tandem %q: %v", tt.args, err)
			}
			lines := probeLines(t, stderr)
			if _, info := lines["probe-info"]; info != tt.wantInfo {
				t.Errorf("info line logged %v, want %v:\n%s", info, tt.wantInfo, stderr)
			}
			if _, warn := lines["probe-warn"]; !warn {
				t.Errorf("no warn line logged:\n%s", stderr)
			}
		})
	}
}
