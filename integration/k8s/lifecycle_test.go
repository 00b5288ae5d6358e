//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The scenarios of Kubernetes' own node e2e tests of native sidecars
// (test/e2e_node/container_lifecycle_test.go, v1.32.2) are replayed here
// with their containers' shell as they write it (execCommand in
// container_lifecycle_pod_construction.go): each logs Starting, Started,
// then Exiting, with its own time, to its stdout and to a file of its own
// on a shared emptyDir that outlives a restart, whose earlier lines a new
// run prints again first. One word is ours: Terminating, when SIGTERM
// arrives, so that who was signalled when shows, not only who ended.

// behaviour is one container's part, as execCommand's fields say it.
type behaviour struct {
	startDelay int  // seconds between Starting and Started
	delay      int  // seconds between Started and Exiting
	forever    bool // after the delay, loop until SIGTERM
	term       int  // seconds from SIGTERM to Exiting
	exitCode   int
	// await is a shell condition waited for (60 s at most) after the
	// delay, so that a part can outlast an event whose time is the
	// kubelet's.
	await string
}

// lifecycle is the shell that container name runs: busybox sh, its times
// from `standin now` (busybox's date has no sub-second format).
func lifecycle(name string, b behaviour) []string {
	var s strings.Builder
	log := "/persistent/" + name + ".log"
	fmt.Fprintf(&s, "touch %s; cat %s; ", log, log)
	fmt.Fprintf(&s, `ev() { echo "$(standin now) %s $1" | tee -a %s; }; `, name, log)
	s.WriteString("ev Starting; ")
	fmt.Fprintf(&s, "_term() { ev Terminating; sleep %d; ev Exiting; exit %d; }; trap _term TERM; ", b.term, b.exitCode)
	if b.startDelay > 0 {
		fmt.Fprintf(&s, "sleep %d & wait $!; ", b.startDelay)
	}
	s.WriteString("touch /tmp/started; ev Started; ")
	if b.delay > 0 {
		fmt.Fprintf(&s, "sleep %d & wait $!; ", b.delay)
	}
	if b.await != "" {
		fmt.Fprintf(&s, "i=0; until %s || [ $i -ge 60 ]; do sleep 1 & wait $!; i=$((i+1)); done; ", b.await)
	}
	if b.forever {
		s.WriteString("while :; do sleep 1 & wait $!; done; ")
	}
	fmt.Fprintf(&s, "ev Exiting; exit %d", b.exitCode)
	return []string{"sh", "-c", s.String()}
}

// part is one container of a lifecycle pod.
type part struct {
	name string
	behaviour
}

// lifecycleSpec is a pod spec of the sidecars (declared in this order)
// and the main, each running lifecycle, with the shared /persistent.
func lifecycleSpec(main behaviour, sidecars ...part) map[string]any {
	var containers []any
	for _, s := range sidecars {
		containers = append(containers, ctr(s.name, lifecycle(s.name, s.behaviour)...))
	}
	containers = append(containers, ctr("main", lifecycle("main", main)...))
	return withVolume(map[string]any{"containers": containers}, "persistent", "/persistent")
}

// names are the parts' names.
func names(parts []part) []string {
	var list []string
	for _, p := range parts {
		list = append(list, p.name)
	}
	return list
}

// sidecarAnnotations names the sidecars for inject, each stopped by
// SIGTERM (the test image sets no STOPSIGNAL).
func sidecarAnnotations(sidecars ...string) map[string]string {
	a := map[string]string{"tandem.sh/sidecars": strings.Join(sidecars, ",")}
	for _, s := range sidecars {
		a["tandem.sh/stop-signal."+s] = "TERM"
	}
	return a
}

// timeline is what the containers logged, in time order: Ctr is the
// container, Text the word, At its own time.
type timeline []kit.Line

// lifecycleLine is one, after the runtime's time when the output was read
// with --timestamps.
var lifecycleLine = regexp.MustCompile(`^(?:\S+ )?(\S+) (\S+) (Starting|Started|Terminating|Exiting|PostStart|PreStop)$`)

// parseTimeline reads lifecycle lines out of containers' output (tandem's
// own lines are left out); a line printed again by a restarted run counts
// once.
func parseTimeline(outputs ...string) (timeline, error) {
	seen := map[string]bool{}
	var tl timeline
	for _, out := range outputs {
		for _, text := range strings.Split(out, "\n") {
			m := lifecycleLine.FindStringSubmatch(strings.TrimSpace(text))
			if m == nil {
				continue
			}
			key := strings.Join(m[1:], " ")
			if seen[key] {
				continue
			}
			seen[key] = true
			at, err := time.Parse(time.RFC3339Nano, m[1])
			if err != nil {
				return nil, fmt.Errorf("%q: %w", text, err)
			}
			tl = append(tl, kit.Line{At: at, Ctr: m[2], Text: m[3]})
		}
	}
	kit.SortByTime(tl)
	return tl, nil
}

// podTimeline reads the timeline of a pod that still exists. A restarted
// container's run before its newest is read too, while the kubelet still
// keeps it (1.32's may have removed it once the pod ended): the kubelet
// may start a native sidecar once more after the mains ended, and tandem
// then starts no program, so the newest run prints nothing of the earlier
// ones.
func (n *namespace) podTimeline(p pod) timeline {
	n.t.Helper()
	var outs []string
	for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if cs.Name == "tandem-install" {
			continue
		}
		outs = append(outs, n.run(nil, "logs", p.Metadata.Name, "-c", cs.Name))
		if cs.RestartCount == 0 {
			continue
		}
		out, err := n.try(nil, "logs", "--previous", p.Metadata.Name, "-c", cs.Name)
		switch {
		case err == nil:
			outs = append(outs, out)
		case !strings.Contains(err.Error(), "previous terminated container"):
			n.t.Fatal(err)
		}
	}
	tl, err := parseTimeline(outs...)
	if err != nil {
		n.t.Fatal(err)
	}
	return tl
}

// index is the first line at or after from where ctr logged word, or -1.
func (tl timeline) index(ctr, word string, from int) int {
	for i := max(from, 0); i < len(tl); i++ {
		if tl[i].Ctr == ctr && tl[i].Text == word {
			return i
		}
	}
	return -1
}

func (tl timeline) String() string { return kit.Format(tl) }

// after fails unless b logged bWord after a logged aWord (its first time).
func (tl timeline) after(t *testing.T, a, aWord, b, bWord string) {
	t.Helper()
	i := tl.index(a, aWord, 0)
	if i < 0 {
		t.Errorf("%s never logged %s:\n%s", a, aWord, tl)
		return
	}
	if tl.index(b, bWord, i+1) < 0 {
		t.Errorf("%s logged no %s after %s's %s (at %s):\n%s", b, bWord, a, aWord, tl[i].At.Format("15:04:05.000"), tl)
	}
}

// startsBefore: b starts (again) after a has started.
func (tl timeline) startsBefore(t *testing.T, a, b string) {
	t.Helper()
	tl.after(t, a, "Started", b, "Starting")
}

// exitsBefore: b exits after a has exited.
func (tl timeline) exitsBefore(t *testing.T, a, b string) {
	t.Helper()
	tl.after(t, a, "Exiting", b, "Exiting")
}

// starts counts how often ctr started.
func (tl timeline) starts(ctr string) int {
	return len(slices.DeleteFunc(slices.Clone(tl), func(l kit.Line) bool { return l.Ctr != ctr || l.Text != "Starting" }))
}

// has fails unless ctr logged word.
func (tl timeline) has(t *testing.T, ctr, word string) {
	t.Helper()
	if tl.index(ctr, word, 0) < 0 {
		t.Errorf("%s never logged %s:\n%s", ctr, word, tl)
	}
}

// followAll follows the output of containers of p (see follow).
func (n *namespace) followAll(ctx context.Context, p pod, containers ...string) []*logStream {
	var streams []*logStream
	for _, c := range containers {
		streams = append(streams, n.follow(ctx, p.Metadata.Name, c))
	}
	return streams
}

// streamsTimeline waits, at most bound, for the streams to end and reads
// their timeline.
func streamsTimeline(t *testing.T, bound time.Duration, streams []*logStream) timeline {
	t.Helper()
	var outs []string
	for _, s := range streams {
		if !s.ended(bound) {
			t.Errorf("the output of %s did not end within %s", s.ctr, bound)
		}
		outs = append(outs, s.output())
	}
	tl, err := parseTimeline(outs...)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}
