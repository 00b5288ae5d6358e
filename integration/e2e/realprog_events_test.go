//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// isEvent says whether l is tandem's line for the lifecycle event name.
func (l logLine) isEvent(name string) bool {
	return l.Fields != nil && l.field("event") == name
}

// step is one thing that happened in a container: an event tandem logged,
// or a line the program printed (a substring of it).
type step struct{ ctr, event, text string }

func tandemDid(ctr, event string) step  { return step{ctr: ctr, event: event} }
func programSaid(ctr, text string) step { return step{ctr: ctr, text: text} }

func (s step) String() string {
	if s.event != "" {
		return fmt.Sprintf("tandem event %s in %s", s.event, s.ctr)
	}
	return fmt.Sprintf("%s saying %q", s.ctr, s.text)
}

func (s step) matches(l logLine) bool {
	if l.Ctr != s.ctr {
		return false
	}
	if s.event != "" {
		return l.isEvent(s.event)
	}
	return l.Fields == nil && strings.Contains(l.Text, s.text)
}

// first returns the first line that matches s.
func (s step) first(lines []logLine) (logLine, bool) {
	for _, l := range lines {
		if s.matches(l) {
			return l, true
		}
	}
	return logLine{}, false
}

// mustFind returns the first line of s, or fails the test.
func mustFind(t *testing.T, lines []logLine, s step) logLine {
	t.Helper()
	l, ok := s.first(lines)
	if !ok {
		t.Fatalf("no %s", s)
	}
	return l
}

// assertSteps asserts that every step happened, in this order. As in
// assertOrder, a program's line is timed when podman read it, so it may only
// end the chain.
func assertSteps(t *testing.T, lines []logLine, steps ...step) {
	t.Helper()
	var prev logLine
	for i, s := range steps {
		l, ok := s.first(lines)
		if !ok {
			t.Errorf("step %d: no %s", i+1, s)
			return
		}
		if s.event == "" && i < len(steps)-1 {
			t.Fatalf("test bug: step %d (%s) is a program's line, so it may only be the last of a chain", i+1, s)
		}
		if i > 0 && l.At.Before(prev.At) {
			t.Errorf("step %d came before step %d:\n  %s\n  %s", i+1, i, l, prev)
		}
		prev = l
	}
}

// assertNever asserts that the program in ctr printed no line containing
// any of texts.
func assertNever(t *testing.T, lines []logLine, ctr string, texts ...string) {
	t.Helper()
	for _, l := range lines {
		for _, text := range texts {
			if programSaid(ctr, text).matches(l) {
				t.Errorf("%s said %q: %s", ctr, text, l.Text)
			}
		}
	}
}
