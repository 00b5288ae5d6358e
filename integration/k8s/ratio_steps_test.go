//go:build k8s && k8sbench

package k8s

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A pod's start, step by step. The kubelet's own timestamps (a container's
// startedAt, finishedAt, the pod's conditions, its events) are whole
// seconds, as coarse as the steps they would time; the container runtime
// logs each call the kubelet makes to it, and each exit, to the
// nanosecond. So the steps come from the runtime's log: the kubelet's
// sequencing is the gaps between them.

// The events of a pod's start, in the order of the table's columns.
const (
	eventSandbox          = "sandbox ready"
	eventFirstInstruction = "main's 1st instruction"
)

// startContainers are the containers whose steps are timed, in the order
// they start in the injected pods.
var startContainers = []string{"tandem-install", "proxy", "main"}

// startColumns are the table's columns: every event, in the order of a
// native injected pod's start.
func startColumns() []string {
	cols := []string{eventSandbox}
	for _, c := range startContainers {
		cols = append(cols, c+" created", c+" started", c+" exited")
	}
	return append(cols, eventFirstInstruction)
}

// startTimeline is each event's time from the apply.
type startTimeline map[string]time.Duration

// runtimeLog is the cluster's containerd log (integration/k8s/env.sh).
func runtimeLog() string {
	state := os.Getenv("TANDEM_K8S_STATE")
	if state == "" {
		state = "/var/lib/tandem-k8s"
	}
	return filepath.Join(state, "log", "containerd.log")
}

// runtimeSteps reads p's start from the runtime's log: its sandbox by the
// pod's UID, each container by the ID its status gives. An event the log
// lacks is left out.
func runtimeSteps(t *testing.T, p pod, applied time.Time) startTimeline {
	t.Helper()
	ids := map[string]string{}
	for _, c := range startContainers {
		// containerd://ID; none for a container never created.
		if cs, ok := p.container(c); ok {
			if _, id, found := strings.Cut(cs.ContainerID, "://"); found {
				ids[c] = id
			}
		}
	}
	f, err := os.Open(runtimeLog())
	if err != nil {
		t.Fatalf("the runtime's log: %v", err)
	}
	defer f.Close()
	timeline := startTimeline{}
	note := func(event, line string) {
		if _, seen := timeline[event]; seen {
			return
		}
		if at, ok := logTime(line); ok {
			timeline[event] = at.Sub(applied)
		}
	}
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		line := lines.Text()
		if strings.Contains(line, p.Metadata.UID) && strings.Contains(line, "returns sandbox id") {
			note(eventSandbox, line)
		}
		for c, id := range ids {
			switch {
			case !strings.Contains(line, id):
			case strings.Contains(line, "returns container id"):
				note(c+" created", line)
			case strings.Contains(line, "StartContainer") && strings.Contains(line, "returns successfully"):
				note(c+" started", line)
			case strings.Contains(line, "exit event") || strings.Contains(line, "TaskExit"):
				// containerd 2.x logs each exit; 1.6 does not, at info.
				note(c+" exited", line)
			}
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatalf("the runtime's log: %v", err)
	}
	return timeline
}

// logTime is the time of a containerd log line (time="RFC 3339").
func logTime(line string) (time.Time, bool) {
	rest, found := strings.CutPrefix(line, `time="`)
	if !found {
		return time.Time{}, false
	}
	stamp, _, _ := strings.Cut(rest, `"`)
	at, err := time.Parse(time.RFC3339Nano, stamp)
	return at, err == nil
}

// medianOf is the median of event over the timelines that have it, 0 when
// none has.
func medianOf(timelines []startTimeline, event string) time.Duration {
	var seen []time.Duration
	for _, tl := range timelines {
		if d, ok := tl[event]; ok {
			seen = append(seen, d)
		}
	}
	if len(seen) == 0 {
		return 0
	}
	return median(seen)
}

func firstInstructions(timelines []startTimeline) []time.Duration {
	out := make([]time.Duration, len(timelines))
	for i, tl := range timelines {
		out[i] = tl[eventFirstInstruction]
	}
	return out
}

// stepTable is a markdown table: a row per kind, a column per event, each
// cell the event's median time from the apply, in seconds.
func stepTable(kinds []string, took map[string][]startTimeline) string {
	cols := slices.DeleteFunc(startColumns(), func(col string) bool {
		for _, kind := range kinds {
			if medianOf(took[kind], col) != 0 {
				return false
			}
		}
		return true
	})
	var b strings.Builder
	fmt.Fprintf(&b, "| pod | %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
	for _, kind := range kinds {
		fmt.Fprintf(&b, "| %s |", kind)
		for _, col := range cols {
			if m := medianOf(took[kind], col); m != 0 {
				fmt.Fprintf(&b, " %.2f |", m.Seconds())
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
