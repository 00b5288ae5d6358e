package kit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Line is one line of a process's or a container's output. tandem's JSON
// lines are read as their message and timed by their own "time" field;
// other lines keep their text and the time the container runtime stamped.
type Line struct {
	At     time.Time
	Ctr    string // the container; "" for a process of the tests' own
	Text   string
	Fields map[string]any // tandem's JSON fields; nil for other lines
}

// ParseJSON reads one of tandem's JSON lines; ok is false for any other
// text.
func ParseJSON(text string) (line Line, ok bool) {
	var fields map[string]any
	if json.Unmarshal([]byte(text), &fields) != nil || fields == nil {
		return Line{Text: text}, false
	}
	line = Line{Fields: fields, Text: text}
	line.Text = line.Field("message")
	if own, err := time.Parse(time.RFC3339Nano, line.Field("time")); err == nil {
		line.At = own
	}
	return line, true
}

// Field returns a JSON field as a string ("" when absent).
func (l Line) Field(name string) string {
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

// HasValue tells whether one of the line's JSON fields has the value v,
// whatever its name: for a line that must name something.
func (l Line) HasValue(v string) bool {
	for name := range l.Fields {
		if l.Field(name) == v {
			return true
		}
	}
	return false
}

// Num returns a numeric JSON field (0 when absent or not a number).
func (l Line) Num(name string) int {
	f, _ := l.Fields[name].(float64)
	return int(f)
}

// Is tells whether l is tandem's line for the lifecycle event name: the
// one matching rule of every event a test looks for.
func (l Line) Is(event string) bool {
	return l.Fields != nil && l.Field("event") == event
}

func (l Line) String() string {
	text := l.Text
	if l.Fields != nil {
		raw, _ := json.Marshal(l.Fields)
		text = string(raw)
	}
	return fmt.Sprintf("%s %-16s %s", l.At.Format("15:04:05.000000"), l.Ctr, text)
}

// partialStamp is the timestamp that podman 4.3's `logs --timestamps`
// writes in the middle of a line that conmon read in two parts (a program's
// write that crossed conmon's buffer): "burst2026-12-01T08:50:44.383840336Z  1 line 248"
// is "burst 1 line 248".
var partialStamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z `)

// ParseLogs reads the output of `podman logs --timestamps` or `kubectl logs
// --timestamps` as lines of ctr.
func ParseLogs(ctr, out string) []Line {
	var lines []Line
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		stamp, text, _ := strings.Cut(sc.Text(), " ")
		at, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			at, text = time.Time{}, sc.Text()
		}
		text = partialStamp.ReplaceAllString(text, "")
		line := Line{At: at, Ctr: ctr, Text: text}
		if strings.HasPrefix(text, "{") {
			if own, ok := ParseJSON(text); ok {
				line.Fields, line.Text = own.Fields, own.Text
				if !own.At.IsZero() {
					line.At = own.At
				}
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// SortByTime orders lines by their time, keeping the order of equal ones.
func SortByTime(lines []Line) {
	slices.SortStableFunc(lines, func(a, b Line) int { return a.At.Compare(b.At) })
}

// Format writes lines one per line, for a failure message.
func Format(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintln(&b, l)
	}
	return b.String()
}
