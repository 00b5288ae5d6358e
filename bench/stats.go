package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// summary is what the table shows of one series of timings.
type summary struct {
	n      int
	failed int // runs that timed out or broke; not in n
	median time.Duration
	p95    time.Duration
}

// summarize sorts a copy of d. The median of an even count is the mean of
// the two middle values; p95 is the nearest rank (the smallest value with at
// least 95% of the runs at or below it), so with few runs it is the maximum
// rather than an interpolation between runs that never happened.
func summarize(d []time.Duration) summary {
	s := summary{n: len(d)}
	if len(d) == 0 {
		return s
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	s.median = median(sorted)
	s.p95 = percentile(sorted, 95)
	return s
}

// median of an already sorted series.
func median(sorted []time.Duration) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// percentile by nearest rank of an already sorted series, p in (0, 100].
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	return sorted[min(max(rank, 1), n)-1]
}

// fmtDur prints a latency with three significant figures in the unit a
// reader compares at a glance: ms below a second, seconds above.
func fmtDur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.3f ms", ms)
}

// fmtRatio prints tandem ÷ subject. Tiny ratios read better inverted
// ("1/2000" rather than "0.0005").
func fmtRatio(tandem, subject float64) string {
	if subject <= 0 || tandem < 0 || math.IsNaN(tandem) || math.IsNaN(subject) {
		return "—"
	}
	r := tandem / subject
	switch {
	case r == 0:
		return "0"
	case r < 0.1:
		return fmt.Sprintf("1/%.0f", 1/r)
	case r < 10:
		return fmt.Sprintf("%.2f", r)
	}
	return fmt.Sprintf("%.0f", r)
}

func fmtMiB(bytes int64) string {
	return fmt.Sprintf("%.2f MiB", float64(bytes)/(1<<20))
}

// row is one line of the report table. A row whose section differs from the
// previous one is preceded by a section heading row.
type row struct {
	section string
	subject string
	runs    string
	median  string
	p95     string
	ratio   string
	note    string
}

// timingRow fills a row from a series; ratio is left to the caller, who
// knows what tandem is compared with in that section.
func timingRow(section, subject string, s summary, note string) row {
	runs := fmt.Sprint(s.n)
	if s.failed > 0 {
		runs = fmt.Sprintf("%d (+%d failed)", s.n, s.failed)
	}
	r := row{section: section, subject: subject, runs: runs, median: "—", p95: "—", ratio: "—", note: note}
	if s.n > 0 {
		r.median, r.p95 = fmtDur(s.median), fmtDur(s.p95)
	}
	return r
}

// timingRowAgainst adds a timing row whose ratio is tandem's median over
// this subject's.
func (b *bench) timingRowAgainst(section, subject string, s, tandem summary, note string) {
	r := timingRow(section, subject, s, note)
	if s.n > 0 && tandem.n > 0 {
		r.ratio = fmtRatio(float64(tandem.median), float64(s.median))
	}
	b.rows = append(b.rows, r)
}

// renderTable prints the rows as one markdown table; cells must not contain
// a pipe, which would split them.
func renderTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| benchmark / subject | runs | median (or value) | p95 | tandem ÷ subject | notes |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|\n")
	section := ""
	for _, r := range rows {
		if r.section != section {
			section = r.section
			fmt.Fprintf(&b, "| **%s** | | | | | |\n", escapeCell(section))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", escapeCell(r.subject), escapeCell(r.runs),
			escapeCell(r.median), escapeCell(r.p95), escapeCell(r.ratio), escapeCell(r.note))
	}
	return b.String()
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
