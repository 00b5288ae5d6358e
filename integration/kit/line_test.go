package kit

import "testing"

// A line that conmon read in two parts comes back whole, timed by its
// first part; tandem's JSON lines are read as their message, timed by
// their own stamp.
func TestParseLogsJoinsPartialLines(t *testing.T) {
	out := "2026-12-01T08:50:44.383628804Z burst2026-12-01T08:50:44.383840336Z  1 line 248\n" +
		"2026-12-01T08:50:44.384016433Z burst 1 line 142026-12-01T08:50:44.384072987Z 27\n" +
		"2026-12-01T08:50:44.384100000Z {\"message\":\"CMD started\",\"time\":\"2026-12-01T08:50:44.384000000Z\"}\n"
	lines := ParseLogs("c", out)
	for i, want := range []string{"burst 1 line 248", "burst 1 line 1427", "CMD started"} {
		if lines[i].Text != want {
			t.Errorf("line %d: %q; want %q", i+1, lines[i].Text, want)
		}
	}
	if got := lines[0].At.Format("05.000000000"); got != "44.383628804" {
		t.Errorf("line 1 timed %s; want its first part's time", got)
	}
	if got := lines[2].At.Format("05.000000000"); got != "44.384000000" {
		t.Errorf("tandem's line timed %s; want its own stamp", got)
	}
}

// One rule: tandem's lines match by their event field, the program's by
// their text, and neither matches the other kind.
func TestEventMatches(t *testing.T) {
	tandem, _ := ParseJSON(`{"event":"cmd-started","message":"CMD started with cmd-exited"}`)
	tandem.Ctr = "a"
	program := Line{Ctr: "a", Text: "said cmd-started"}
	for _, tc := range []struct {
		e    Event
		l    Line
		want bool
	}{
		{Tandem("a", "cmd-started"), tandem, true},
		{Tandem("b", "cmd-started"), tandem, false},
		{Tandem("a", "cmd-exited"), tandem, false},
		{Tandem("a", "cmd-started"), program, false},
		{Program("a", "said"), program, true},
		{Program("a", "CMD started"), tandem, false},
	} {
		if got := tc.e.Matches(tc.l); got != tc.want {
			t.Errorf("%s matches %s: %v; want %v", tc.e, tc.l, got, tc.want)
		}
	}
}
