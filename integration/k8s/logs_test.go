//go:build k8s

package k8s

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// logLine is one line of a container's output. tandem's JSON lines are
// timed by their own "time" field; other lines by the kubelet's stamp.
type logLine struct {
	At     time.Time
	Ctr    string
	Text   string
	Fields map[string]any // tandem's JSON fields; nil for other lines
}

func (l logLine) String() string {
	if l.Fields != nil {
		raw, _ := json.Marshal(l.Fields)
		return fmt.Sprintf("%s %-16s %s", l.At.Format("15:04:05.000000"), l.Ctr, raw)
	}
	return fmt.Sprintf("%s %-16s %s", l.At.Format("15:04:05.000000"), l.Ctr, l.Text)
}

// podLogs returns every container's output (of its current run; previous
// also adds the run before a restart), in time order.
func (n *namespace) podLogs(p pod, previous ...string) []logLine {
	n.t.Helper()
	var all []logLine
	for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		out, err := n.try(nil, "logs", p.Metadata.Name, "-c", cs.Name, "--timestamps")
		if err != nil {
			n.t.Fatal(err)
		}
		all = append(all, parseLogs(cs.Name, out)...)
		if slices.Contains(previous, cs.Name) {
			out := n.run(nil, "logs", p.Metadata.Name, "-c", cs.Name, "--timestamps", "--previous")
			all = append(all, parseLogs(cs.Name, out)...)
		}
	}
	sortLines(all)
	return all
}

func sortLines(lines []logLine) {
	slices.SortStableFunc(lines, func(a, b logLine) int { return a.At.Compare(b.At) })
}

func parseLogs(ctr, out string) []logLine {
	var lines []logLine
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		stamp, text, _ := strings.Cut(sc.Text(), " ")
		at, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			at, text = time.Time{}, sc.Text()
		}
		line := logLine{At: at, Ctr: ctr, Text: text}
		var fields map[string]any
		if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &fields) == nil {
			line.Fields = fields
			line.Text = line.field("message")
			if own, err := time.Parse(time.RFC3339Nano, line.field("time")); err == nil {
				line.At = own
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// field returns a tandem JSON field of a line as a string.
func (l logLine) field(name string) string {
	switch v := l.Fields[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// legacyMessages are the messages of tandem's lifecycle lines before they
// carried an `event` field (issue 10): a line without the field is matched
// on its message, so the tests read both binaries.
var legacyMessages = map[string]string{
	"cmd-started":   "CMD started",
	"cmd-exited":    "CMD exited",
	"done-seen":     "main is done",
	"stop-sent":     "stop signal sent",
	"signal-held":   "SIGTERM held",
	"ready-written": "ready file written",
	"done-written":  "done file written",
	"exiting":       "tandem exiting",
	"main-failed":   "main failed",
}

// is tells whether l is tandem's lifecycle event name: its `event` field,
// or, for a binary that predates the field, its message.
func (l logLine) is(name string) bool {
	if l.Fields == nil {
		return false
	}
	if ev, ok := l.Fields["event"].(string); ok {
		return ev == name
	}
	legacy, ok := legacyMessages[name]
	return ok && strings.HasPrefix(l.Text, legacy)
}

// event names what a test looks for in the logs: tandem's lifecycle event
// of a container (ev), or a line of its app's output (out).
type event struct {
	ctr, name, text string
}

func ev(ctr, name string) event  { return event{ctr: ctr, name: name} }
func out(ctr, text string) event { return event{ctr: ctr, text: text} }

func (e event) String() string {
	if e.name != "" {
		return e.ctr + " " + e.name
	}
	return fmt.Sprintf("%s %q", e.ctr, e.text)
}

func (e event) matches(l logLine) bool {
	if l.Ctr != e.ctr {
		return false
	}
	if e.name != "" {
		return l.is(e.name)
	}
	return l.Fields == nil && strings.Contains(l.Text, e.text)
}

func find(lines []logLine, e event) (logLine, bool) {
	for _, l := range lines {
		if e.matches(l) {
			return l, true
		}
	}
	return logLine{}, false
}

func findFunc(lines []logLine, ok func(logLine) bool) (logLine, bool) {
	if i := slices.IndexFunc(lines, ok); i >= 0 {
		return lines[i], true
	}
	return logLine{}, false
}

func mustFind(t *testing.T, lines []logLine, e event) logLine {
	t.Helper()
	l, ok := find(lines, e)
	if !ok {
		t.Fatalf("no line: %s\n%s", e, joinLines(lines))
	}
	return l
}

// assertOrder asserts that every event happened, in this order. Only
// tandem's lines carry their own time, so an app's line may only end a
// chain (the kubelet stamps it when it reads it).
func assertOrder(t *testing.T, lines []logLine, events ...event) {
	t.Helper()
	var prev logLine
	for i, e := range events {
		l, ok := find(lines, e)
		if !ok {
			t.Errorf("event %d: no line: %s\n%s", i+1, e, joinLines(lines))
			return
		}
		if l.Fields == nil && i < len(events)-1 {
			t.Fatalf("test bug: event %d (%s) is not tandem's, so it may only end a chain", i+1, e)
		}
		if i > 0 && l.At.Before(prev.At) {
			t.Errorf("event %d came before event %d:\n  %s\n  %s", i+1, i, l, prev)
		}
		prev = l
	}
}

func joinLines(lines []logLine) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintln(&b, l)
	}
	return b.String()
}
