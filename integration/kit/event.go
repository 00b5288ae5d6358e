package kit

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Event is what a test looks for in the lines: tandem's lifecycle event in
// a container (Tandem), or a line the container's program wrote (Program).
type Event struct {
	Ctr, Name, Text string
}

// Tandem is the line on which ctr's tandem logged event (its `event` field).
func Tandem(ctr, event string) Event { return Event{Ctr: ctr, Name: event} }

// Program is a line of ctr's program, not tandem's, that contains text.
func Program(ctr, text string) Event { return Event{Ctr: ctr, Text: text} }

func (e Event) String() string {
	if e.Name != "" {
		return fmt.Sprintf("tandem event %s in %s", e.Name, e.Ctr)
	}
	return fmt.Sprintf("%s saying %q", e.Ctr, e.Text)
}

// Matches is the one matching rule: tandem's lines by their event, the
// program's by their text.
func (e Event) Matches(l Line) bool {
	if l.Ctr != e.Ctr {
		return false
	}
	if e.Name != "" {
		return l.Is(e.Name)
	}
	return l.Fields == nil && strings.Contains(l.Text, e.Text)
}

// Find returns the first line that matches e.
func Find(lines []Line, e Event) (Line, bool) {
	return FindFunc(lines, e.Matches)
}

// FindFunc returns the first line that ok accepts.
func FindFunc(lines []Line, ok func(Line) bool) (Line, bool) {
	if i := slices.IndexFunc(lines, ok); i >= 0 {
		return lines[i], true
	}
	return Line{}, false
}

// MustFind returns the first line that matches e, or fails the test.
func MustFind(t testing.TB, lines []Line, e Event) Line {
	t.Helper()
	l, ok := Find(lines, e)
	if !ok {
		t.Fatalf("no %s\n%s", e, Format(lines))
	}
	return l
}
