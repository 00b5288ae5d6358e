package main

import (
	"strings"
	"testing"
	"time"
)

// These tests cover the helpers that turn measurements into the table:
// statistics, /proc parsing, run scheduling, flags. Nothing here times
// anything: benchmarks print, tests assert on behaviour.

func ms(v ...float64) []time.Duration {
	d := make([]time.Duration, len(v))
	for i, x := range v {
		d[i] = time.Duration(x * float64(time.Millisecond))
	}
	return d
}

func TestSummarize(t *testing.T) {
	twenty := make([]float64, 20)
	for i := range twenty {
		twenty[i] = float64(20 - i) // 20 … 1, unsorted on purpose
	}
	tests := []struct {
		name        string
		in          []time.Duration
		median, p95 time.Duration
	}{
		{"empty", nil, 0, 0},
		{"one", ms(3), ms(3)[0], ms(3)[0]},
		{"odd count: middle value", ms(5, 1, 3), ms(3)[0], ms(5)[0]},
		{"even count: mean of the middle two", ms(4, 1, 2, 3), ms(2.5)[0], ms(4)[0]},
		// Nearest rank: ceil(0.95 × 20) = 19th smallest.
		{"p95 of 20 is the 19th", ms(twenty...), ms(10.5)[0], ms(19)[0]},
		// With 3 runs p95 is the maximum, not an interpolation.
		{"p95 of 3 is the max", ms(10, 30, 20), ms(20)[0], ms(30)[0]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]time.Duration(nil), tc.in...)
			s := summarize(tc.in)
			if s.n != len(tc.in) || s.median != tc.median || s.p95 != tc.p95 {
				t.Errorf("summarize(%v) = n %d median %v p95 %v, want n %d median %v p95 %v",
					tc.in, s.n, s.median, s.p95, len(tc.in), tc.median, tc.p95)
			}
			for i := range orig {
				if orig[i] != tc.in[i] {
					t.Fatalf("summarize reordered its input")
				}
			}
		})
	}
}

func TestPercentileOf200(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 200; i++ {
		d = append(d, time.Duration(i))
	}
	if got := percentile(d, 95); got != 190 {
		t.Errorf("p95 of 1..200 = %d, want 190", got)
	}
	if got := percentile(d, 100); got != 200 {
		t.Errorf("p100 = %d, want 200", got)
	}
}

func TestFormatting(t *testing.T) {
	durs := []struct {
		d    time.Duration
		want string
	}{
		{312 * time.Microsecond, "0.312 ms"},
		{6410 * time.Microsecond, "6.41 ms"},
		{14900 * time.Microsecond, "14.9 ms"},
		{739 * time.Millisecond, "739 ms"},
		{1680 * time.Millisecond, "1.68 s"},
	}
	for _, tc := range durs {
		if got := fmtDur(tc.d); got != tc.want {
			t.Errorf("fmtDur(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	ratios := []struct {
		tandem, subject float64
		want            string
	}{
		{1, 1, "1.00"},
		{0.5, 50, "1/100"},
		{14, 2, "7.00"},
		{300, 2, "150"},
		{1, 0, "—"},
	}
	for _, tc := range ratios {
		if got := fmtRatio(tc.tandem, tc.subject); got != tc.want {
			t.Errorf("fmtRatio(%v, %v) = %q, want %q", tc.tandem, tc.subject, got, tc.want)
		}
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\ttandem\nVmRSS:\t    5300 kB\nRssAnon:\t    1064 kB\nRssFile:\t    4236 kB\nThreads:\t8\n" +
		"voluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n"
	st, err := parseStatus([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if st.vmRSSKB != 5300 || st.rssAnonKB != 1064 || st.threads != 8 {
		t.Errorf("parseStatus = %+v", st)
	}
	if n := parseSwitches([]byte(status)); n != 15 {
		t.Errorf("parseSwitches = %d, want 15", n)
	}
	if _, err := parseStatus([]byte("Name:\tx\n")); err == nil {
		t.Error("parseStatus without the fields: want an error")
	}
}

func TestParseStat(t *testing.T) {
	// A command name may hold spaces and parentheses: fields count from the last ')'.
	stat := "1234 (a (b) c) Z 1 1234 1234 0 -1 4194560 100 0 0 0 7 9 0 0 20 0 1 0 12345 0 0"
	st, err := parseStat([]byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	if st.state != 'Z' || st.utime != 7 || st.stime != 9 {
		t.Errorf("parseStat = %+v, want state Z utime 7 stime 9", st)
	}
	if _, err := parseStat([]byte("1234 (x) S 1")); err == nil {
		t.Error("short stat: want an error")
	}
}

func TestParsePIDList(t *testing.T) {
	got := parsePIDList([]byte("12 345 6789 \n"))
	if len(got) != 3 || got[0] != 12 || got[2] != 6789 {
		t.Errorf("parsePIDList = %v", got)
	}
	if got := parsePIDList(nil); len(got) != 0 {
		t.Errorf("parsePIDList(empty) = %v", got)
	}
}

func TestSpreadRunsEvenly(t *testing.T) {
	for _, n := range []int{1, 3, 10, 30, 100, 200} {
		count, first, last := 0, -1, -1
		for i := range 200 {
			if spread(i, n, 200) {
				count++
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if count != n {
			t.Errorf("spread: %d runs scheduled, want %d", count, n)
		}
		if n > 1 && last-first < 200/2 {
			t.Errorf("spread(%d): runs bunched between rounds %d and %d", n, first, last)
		}
	}
}

func TestQuickConfigIsSmallButComplete(t *testing.T) {
	quick, full := newConfig(true), newConfig(false)
	counts := func(c config) []int {
		return []int{c.doneRuns, c.shellFastRuns, c.shellSlowRuns, c.peerSignalRuns, c.forwardRuns,
			c.termRuns, c.startupRuns, c.orphans, c.reapRuns}
	}
	q, f := counts(quick), counts(full)
	for i := range q {
		if q[i] <= 0 || q[i] > f[i] {
			t.Errorf("count %d: quick %d, full %d: quick must run each path at least once, and less", i, q[i], f[i])
		}
	}
	if full.doneRuns < 200 || full.forwardRuns < 200 || full.startupRuns < 200 || full.orphans != 10000 {
		t.Errorf("full run below the issue's counts: %+v", full)
	}
	if quick.idle >= full.idle {
		t.Errorf("quick idle window %v not shorter than %v", quick.idle, full.idle)
	}
}

func TestParseOnly(t *testing.T) {
	all, err := parseOnly("")
	if err != nil || len(all) != len(benchmarkNames) {
		t.Errorf("parseOnly(\"\") = %v, %v", all, err)
	}
	some, err := parseOnly("done, reap")
	if err != nil || !some["done"] || !some["reap"] || some["signal"] {
		t.Errorf("parseOnly(done, reap) = %v, %v", some, err)
	}
	if _, err := parseOnly("done,nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("parseOnly(nope): err = %v, want one naming it", err)
	}
}

func TestRenderTable(t *testing.T) {
	out := renderTable([]row{
		{section: "A", subject: "x | y", runs: "1", median: "1 ms", p95: "2 ms", ratio: "1.00"},
		{section: "A", subject: "z", runs: "1", median: "1 ms", p95: "2 ms", ratio: "1.00"},
		{section: "B", subject: "w", runs: "1", median: "1 ms", p95: "2 ms", ratio: "1.00"},
	})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2+2+3 {
		t.Fatalf("want header, 2 section rows, 3 rows; got:\n%s", out)
	}
	for _, l := range lines {
		if cells := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); cells != 7 {
			t.Errorf("row with %d separators, want 7: %s", cells, l)
		}
	}
}

func TestShellQuote(t *testing.T) {
	got := shellQuote([]string{"/bin/sh", "-c", "echo 'hi'"})
	want := `'/bin/sh' '-c' 'echo '\''hi'\'''`
	if got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}
