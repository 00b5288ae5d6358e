package main

import (
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// TestDoneFileNames: `tandem done` takes --done-file and TANDEM_DONE_FILE
// as sidecar and main do; --file stays an alias and TANDEM_FILE is still
// read, with a warning, when TANDEM_DONE_FILE is not set.
func TestDoneFileNames(t *testing.T) {
	jsonLogs := map[string]string{"TANDEM_LOG_FORMAT": "json"}
	with := func(kv ...string) map[string]string {
		env := map[string]string{"TANDEM_LOG_FORMAT": "json"}
		for i := 0; i < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return env
	}
	for _, tt := range []struct {
		name       string
		env        map[string]string
		args       []string
		want       string
		deprecated bool
	}{
		{"flag", jsonLogs, []string{"done", "--done-file", "/d"}, "/d", false},
		{"alias", jsonLogs, []string{"done", "--file", "/d"}, "/d", false},
		{"variable", with("TANDEM_DONE_FILE", "/d"), []string{"done"}, "/d", false},
		{"older variable", with("TANDEM_FILE", "/old"), []string{"done"}, "/old", true},
		{"variable beats the older one", with("TANDEM_DONE_FILE", "/d", "TANDEM_FILE", "/old"), []string{"done"}, "/d", false},
		{"flag beats both", with("TANDEM_DONE_FILE", "/e", "TANDEM_FILE", "/old"), []string{"done", "--done-file", "/d"}, "/d", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, stderr, err := runApp(t, tt.env, tt.args...)
			if err != nil || got.done == nil {
				t.Fatalf("tandem %q: %v\n%s", tt.args, err, stderr)
			}
			if got.done.File != tt.want {
				t.Errorf("done file %q, want %q", got.done.File, tt.want)
			}
			line, warned := probeLines(t, stderr)[cmdline.EventDeprecated]
			if warned != tt.deprecated || (warned && (line["level"] != "warn" || !strings.Contains(line["message"].(string), "TANDEM_DONE_FILE"))) {
				t.Errorf("deprecation warning %v (%v), want %v", warned, line, tt.deprecated)
			}
		})
	}
}
