//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// playedPod is a pod running under podman, removed when the test ends.
type playedPod struct {
	*pod
	t       *testing.T
	file    string
	started time.Time
}

// play runs p with `podman kube play` and registers its removal. When the
// test fails, every container's log is printed first.
func play(t *testing.T, p *pod) *playedPod {
	t.Helper()
	requirePodman(t)
	p.checkCommands(t)
	markPlayed(p.source)
	file := filepath.Join(t.TempDir(), p.name+".yaml")
	if err := os.WriteFile(file, []byte(p.yaml()), 0o644); err != nil {
		t.Fatal(err)
	}
	pp := &playedPod{pod: p, t: t, file: file}
	t.Cleanup(func() {
		// Kill first: the test has read what it needs.
		_, _, _ = podman(context.Background(), "pod", "rm", "--force", "--ignore", "--time", "0", p.name)
		_, _, _ = podman(context.Background(), "kube", "down", file)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("manifest played:\n%s", p.yaml())
			pp.dumpLogs()
		}
	})
	pp.started = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), podmanTimeout)
	defer cancel()
	if _, stderr, err := podman(ctx, "kube", "play", "--replace", file); err != nil {
		t.Fatalf("podman kube play: %v\n%s\nmanifest:\n%s", err, stderr, p.yaml())
	}
	return pp
}

// podmanTimeout bounds a podman command that should return at once
// (everything but waits), so that a stuck podman fails one test, not the
// whole run at its timeout.
const podmanTimeout = 2 * time.Minute

// podman runs one podman command; CONTAINERS_CONF is in the environment.
func podman(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "podman", args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if err != nil {
		err = fmt.Errorf("podman %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), errOut.String(), err
}

func (pp *playedPod) ctrName(ctr string) string { return pp.name + "-" + ctr }

// waitExited waits until every listed container exited, for at most bound.
// It returns false when the bound passed first.
func (pp *playedPod) waitExited(bound time.Duration, ctrs ...string) bool {
	pp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for _, ctr := range ctrs {
		if _, _, err := podman(ctx, "wait", pp.ctrName(ctr)); err != nil {
			if ctx.Err() != nil {
				return false
			}
			pp.t.Fatalf("wait for %s: %v", ctr, err)
		}
	}
	return true
}

// mustEnd fails the test unless every container of the pod exits within
// bound, and says how long the pod took.
func (pp *playedPod) mustEnd(bound time.Duration) time.Duration {
	pp.t.Helper()
	if !pp.waitExited(bound, pp.containers()...) {
		pp.t.Fatalf("pod %s did not end within %s", pp.name, bound)
	}
	took := time.Since(pp.started)
	// Podman stops the infra container once the others exited: the pod as
	// a whole is Exited, as a completed Job's pod is Succeeded or Failed.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _, err := podman(context.Background(), "pod", "inspect", pp.name, "--format", "{{.State}}")
		if err == nil && strings.TrimSpace(out) == "Exited" {
			break
		}
		if time.Now().After(deadline) {
			pp.t.Fatalf("every container of pod %s exited, but the pod is %q", pp.name, strings.TrimSpace(out))
		}
	}
	pp.t.Logf("pod %s ended %s after kube play", pp.name, took.Round(time.Millisecond))
	return took
}

// state is what `podman inspect` says about a container.
type state struct {
	Status   string
	ExitCode int
}

func (pp *playedPod) state(ctr string) state {
	pp.t.Helper()
	out, _, err := podman(context.Background(), "inspect", pp.ctrName(ctr), "--format", "{{json .State}}")
	if err != nil {
		pp.t.Fatal(err)
	}
	var st state
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		pp.t.Fatalf("inspect %s: %v\n%s", ctr, err, out)
	}
	return st
}

// exitCodes asserts the exit code of each container
// (`podman inspect NAME-CTR --format '{{.State.ExitCode}}'`).
func (pp *playedPod) exitCodes(want map[string]int) {
	pp.t.Helper()
	for _, ctr := range slices.Sorted(maps.Keys(want)) {
		out, _, err := podman(context.Background(), "inspect", pp.ctrName(ctr), "--format", "{{.State.Status}} {{.State.ExitCode}}")
		if err != nil {
			pp.t.Fatal(err)
		}
		fields := strings.Fields(out)
		if len(fields) != 2 {
			pp.t.Fatalf("inspect %s: %q", ctr, out)
		}
		code, _ := strconv.Atoi(fields[1])
		if fields[0] != "exited" || code != want[ctr] {
			pp.t.Errorf("container %s: %s, exit code %d; want exited, exit code %d", ctr, fields[0], code, want[ctr])
		}
	}
}

// logLine is one line of a container's output. tandem's JSON log lines are
// timed by their own "time" field and read as their message; other lines by
// the time podman recorded them.
type logLine struct {
	At     time.Time
	Ctr    string
	Text   string
	Fields map[string]any // tandem's JSON fields; nil for other lines
}

func (l logLine) String() string {
	return fmt.Sprintf("%s %-16s %s", l.At.Format("15:04:05.000000"), l.Ctr, l.Text)
}

// logs returns the output of every container (stdout and stderr), in time
// order.
func (pp *playedPod) logs() []logLine {
	pp.t.Helper()
	var all []logLine
	for _, ctr := range pp.containers() {
		stdout, stderr, err := podman(context.Background(), "logs", "--timestamps", pp.ctrName(ctr))
		if err != nil {
			pp.t.Fatal(err)
		}
		all = append(all, parseLogs(ctr, stdout)...)
		all = append(all, parseLogs(ctr, stderr)...)
	}
	slices.SortStableFunc(all, func(a, b logLine) int { return a.At.Compare(b.At) })
	return all
}

// partialStamp is the timestamp that podman 4.3's `logs --timestamps`
// writes in the middle of a line that conmon read in two parts (a program's
// write that crossed conmon's buffer): "burst2026-12-01T08:50:44.383840336Z  1 line 248"
// is "burst 1 line 248".
var partialStamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z `)

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
		text = partialStamp.ReplaceAllString(text, "")
		line := logLine{At: at, Ctr: ctr, Text: text}
		var fields map[string]any
		if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &fields) == nil {
			line.Fields = fields
			if msg, ok := fields["message"].(string); ok {
				line.Text = msg
			}
			if s, ok := fields["time"].(string); ok {
				if own, err := time.Parse(time.RFC3339Nano, s); err == nil {
					line.At = own
				}
			}
		}
		lines = append(lines, line)
	}
	return lines
}

func (pp *playedPod) dumpLogs() {
	var b strings.Builder
	for _, l := range pp.logs() {
		if l.Fields != nil {
			raw, _ := json.Marshal(l.Fields)
			fmt.Fprintf(&b, "%s %-16s %s\n", l.At.Format("15:04:05.000000"), l.Ctr, raw)
			continue
		}
		fmt.Fprintln(&b, l)
	}
	pp.t.Logf("logs of pod %s:\n%s", pp.name, b.String())
}

// find returns the first line of ctr that contains text; of tandem's JSON
// lines, the first whose event is text.
func find(lines []logLine, ctr, text string) (logLine, bool) {
	for _, l := range lines {
		if l.Ctr == ctr && l.matches(text) {
			return l, true
		}
	}
	return logLine{}, false
}

func (l logLine) matches(text string) bool {
	if l.Fields != nil {
		ev, _ := l.Fields["event"].(string)
		return ev == text
	}
	return strings.Contains(l.Text, text)
}

// event names the first line of a container that contains a text.
type event struct{ ctr, text string }

// assertOrder asserts that every event happened, in this order. tandem's
// lines carry the time tandem wrote them; other lines are timed when podman
// read them, which on a loaded machine can be much later. So a line that is
// not tandem's may only end a chain: it is never earlier than recorded.
func assertOrder(t *testing.T, lines []logLine, events ...event) {
	t.Helper()
	var prev logLine
	for i, ev := range events {
		l, ok := find(lines, ev.ctr, ev.text)
		if !ok {
			t.Errorf("event %d: no line of %s contains %q", i+1, ev.ctr, ev.text)
			return
		}
		if l.Fields == nil && i < len(events)-1 {
			t.Fatalf("test bug: event %d (%s) is not tandem's own line, so it may only be the last of a chain", i+1, l)
		}
		if i > 0 && l.At.Before(prev.At) {
			t.Errorf("event %d came before event %d:\n  %s\n  %s", i+1, i, l, prev)
		}
		prev = l
	}
}

// assertPresent asserts that every event happened, in any order: lines that
// the two sides of one exchange print within microseconds of each other.
func assertPresent(t *testing.T, lines []logLine, events ...event) {
	t.Helper()
	for _, ev := range events {
		if _, ok := find(lines, ev.ctr, ev.text); !ok {
			t.Errorf("no line of %s contains %q", ev.ctr, ev.text)
		}
	}
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
