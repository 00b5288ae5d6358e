package main

import (
	"fmt"
	"sort"
	"strings"
)

// headline is one of the figures tandem is held to: tandem
// against its reference, both measured in this run, and the goal for the
// ratio. The sections record them; the report prints them together after
// the full table.
type headline struct {
	order             int // its place in the report
	figure, reference string
	tandem, ref       summary
	goal              string
}

// The figures, in the order the report prints them.
const (
	headDoneGone = iota
	headDoneExited
	headStartup
	headStartupGo // the same figure against a minimal Go init
	headReap
	headReapGo // the same figure against a minimal Go reaper
	headForward
	headForwardGo // the same figure against a minimal Go forwarder
	headLostGone
	headNeedsLost // a needed sidecar killed outright → the main's CMD signalled
)

func (b *bench) headline(h headline) { b.headlines = append(b.headlines, h) }

// renderHeadlines is the short table: tandem, reference, ratio, goal.
func renderHeadlines(hs []headline) string {
	if len(hs) == 0 {
		return ""
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].order < hs[j].order })
	var sb strings.Builder
	sb.WriteString("\n## At the floor: tandem against its reference (medians of this run)\n\n")
	sb.WriteString("| figure | tandem | reference | ratio | goal |\n|---|---:|---|---:|---|\n")
	for _, h := range hs {
		ratio := "—"
		if h.tandem.n > 0 && h.ref.n > 0 {
			ratio = fmtRatio(float64(h.tandem.median), float64(h.ref.median)) + "×"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s %s | %s | %s |\n", h.figure, medianOf(h.tandem), h.reference, medianOf(h.ref), ratio, h.goal)
	}
	return sb.String()
}

func medianOf(s summary) string {
	if s.n == 0 {
		return "no runs"
	}
	return fmtDur(s.median)
}
