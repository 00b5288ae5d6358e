//go:build e2e

package e2e

import "testing"

// A line that conmon read in two parts comes back whole, timed by its
// first part.
func TestParseLogsJoinsPartialLines(t *testing.T) {
	out := "2026-12-01T08:50:44.383628804Z burst2026-12-01T08:50:44.383840336Z  1 line 248\n" +
		"2026-12-01T08:50:44.384016433Z burst 1 line 142026-12-01T08:50:44.384072987Z 27\n" +
		"2026-12-01T08:50:44.384100000Z {\"message\":\"CMD started\",\"time\":\"2026-12-01T08:50:44.384000000Z\"}\n"
	lines := parseLogs("c", out)
	for i, want := range []string{"burst 1 line 248", "burst 1 line 1427", "CMD started"} {
		if lines[i].Text != want {
			t.Errorf("line %d: %q; want %q", i+1, lines[i].Text, want)
		}
	}
	if got := lines[0].At.Format("05.000000000"); got != "44.383628804" {
		t.Errorf("line 1 timed %s; want its first part's time", got)
	}
}
