package inject

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// grace3 is a pod with main m and sidecars a and b (images and commands
// given), declared in that order, the grace period and annotations given.
func grace3(restart, period, imageA, imageB string, annotations ...string) string {
	src := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    tandem.sh/sidecars: a,b\n"
	for i := 0; i+1 < len(annotations); i += 2 {
		src += "    " + annotations[i] + ": " + annotations[i+1] + "\n"
	}
	src += "spec:\n  restartPolicy: " + restart + "\n"
	if period != "" {
		src += "  terminationGracePeriodSeconds: " + period + "\n"
	}
	return src + "  containers:\n    - {name: m, image: app:1, command: [/m]}\n" +
		"    - {name: a, image: " + imageA + ", command: [/a]}\n    - {name: b, image: " + imageB + ", command: [/b]}\n"
}

// The sidecars stop one after another once the mains have ended, the last
// declared first (classic: each waits for the stopped file of the one
// after it; native: the kubelet's reverse order), so their shares add up:
// the main's --termination-grace leaves all of them, and when they add up
// to more than half the period each keeps its least and the rest is cut
// by one fraction, which the report says, share by share. Played on the
// written command lines, every sidecar's stop ends before the kubelet's
// SIGKILL, in both modes and with either restart policy.
func TestGraceSharesAddUp(t *testing.T) {
	for _, tt := range []struct {
		name, period, imageA, imageB string
		annotations                  []string
		main, graceA, graceB         string // "" where none is written
		warning                      string
	}{
		{"a log shipper after a 5s sidecar, 10s", "10", "app:1", "app:1",
			[]string{SidecarGraceKey + ".a", "3s", SidecarGraceKey + ".b", "5s"}, "5s", "2s", "3s",
			`the sidecars stop one after another, so their shares add up: 8s is more than half the pod's grace period (10s), cut to 5s: sidecar "b" 5s → 3s, then sidecar "a" 3s → 2s (the mains get 5s)`},
		{"two unknown sidecars, the default 30s", "", "app:1", "app:1", nil, "20s", "5s", "5s", ""},
		{"fluent-bit and Vector, 100s", "100", "fluent/fluent-bit:5.1.1", "timberio/vector:0.57.0-debian", nil, "50.1s", "8.4s", "41.5s",
			`the sidecars stop one after another, so their shares add up: 1m15s is more than half the pod's grace period (1m40s), cut to 49.9s: sidecar "b" 1m5s → 41.5s, then sidecar "a" 10s → 8.4s (the mains get 50.1s)`},
	} {
		for _, mode := range []Mode{Classic, Native} {
			for _, restart := range []string{"Never", "Always"} {
				name := fmt.Sprintf("%s, %s, %s", tt.name, mode, restart)
				r, out := injectYAML(t, grace3(restart, tt.period, tt.imageA, tt.imageB, tt.annotations...), testOptionsWith(func(o *Options) {
					o.Mode = mode
					o.Presets = offline().Presets
				}))
				if r.Status != Injected {
					t.Fatalf("%s: %s", name, r)
				}
				got := [3]string{firstValue(listOf(t, out, "m", "command"), "--termination-grace"),
					firstValue(listOf(t, out, "a", "command"), "--grace"), firstValue(listOf(t, out, "b", "command"), "--grace")}
				if got != [3]string{tt.main, tt.graceA, tt.graceB} {
					t.Errorf("%s: --termination-grace, a's and b's --grace %q; want %q", name, got, [3]string{tt.main, tt.graceA, tt.graceB})
				}
				if (tt.warning == "") != (len(r.Warnings) == 0) || tt.warning != "" && !slices.Contains(r.Warnings, tt.warning) {
					t.Errorf("%s: warnings %q; want %q", name, r.Warnings, tt.warning)
				}
				t.Logf("%s: %s", name, strings.Join(playStops(t, out), "; "))
			}
		}
	}
}

// FitShares on its own: each share raised to its least and at most half
// the period; together at most half, the least kept; when even the least
// do not fit, each its least cut by one fraction.
func TestFitShares(t *testing.T) {
	s := time.Second
	for _, tt := range []struct {
		period             time.Duration
		asked, least, want []time.Duration
	}{
		{30 * s, []time.Duration{5 * s, 5 * s}, []time.Duration{s, s}, []time.Duration{5 * s, 5 * s}},
		{10 * s, []time.Duration{3 * s, 5 * s}, []time.Duration{s, s}, []time.Duration{2 * s, 3 * s}},
		{30 * s, []time.Duration{65 * s}, []time.Duration{s}, []time.Duration{15 * s}},
		{30 * s, []time.Duration{time.Millisecond, 5 * s}, []time.Duration{s, 3 * s}, []time.Duration{s, 5 * s}},
		{2 * s, []time.Duration{5 * s, 5 * s}, []time.Duration{3 * s, s}, []time.Duration{700 * time.Millisecond, 200 * time.Millisecond}},
		{0, []time.Duration{5 * s}, []time.Duration{s}, []time.Duration{0}},
		{time.Duration(maxGraceSecs) * s, []time.Duration{1 << 62, 1 << 62, 1 << 62}, []time.Duration{s, s, s}, nil},
	} {
		got := FitShares(tt.period, tt.asked, tt.least)
		if tt.want != nil && !slices.Equal(got, tt.want) {
			t.Errorf("period %s, asked %v, least %v: %v; want %v", tt.period, tt.asked, tt.least, got, tt.want)
		}
		if total := sum(got); total > tt.period/2 || total < 0 {
			t.Errorf("period %s, asked %v: shares %v add up to %s, more than half the period", tt.period, tt.asked, got, total)
		}
	}
}

// firstValue is the value of flag's first occurrence in argv, "" for none.
func firstValue(argv []string, flag string) string {
	if values := flagValues(argv, flag); len(values) > 0 {
		return values[0]
	}
	return ""
}

// playStops plays the worst stop of an injected pod from its written
// command lines, and fails the test where a sidecar's stop would end after
// the kubelet's SIGKILL: the kubelet signals the pod at 0; each main uses
// its whole --termination-grace; then the sidecars stop one after another,
// the last started first (the order of the stopped files where they are
// written, which must be that one; else the kubelet's), each taking its
// --stop-delay and then its --grace once for each step of its stop (three
// with a quit URL), tandem's 10 s when none is written. It returns the
// timeline, for the log.
func playStops(t *testing.T, out string) []string {
	t.Helper()
	type ctr struct{ Command []string }
	var pod struct {
		Spec struct {
			Period         *int64 `yaml:"terminationGracePeriodSeconds"`
			InitContainers []ctr  `yaml:"initContainers"`
			Containers     []ctr
		}
	}
	if err := yaml.Unmarshal([]byte(out), &pod); err != nil {
		t.Fatal(err)
	}
	period := DefaultGracePeriod
	if pod.Spec.Period != nil {
		period = time.Duration(*pod.Spec.Period) * time.Second
	}
	var at time.Duration
	var started [][]string // the sidecars' command lines, in the order they start
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		switch {
		case len(c.Command) < 2:
		case c.Command[1] == "main":
			at = max(at, durationFlag(t, c.Command, "--termination-grace", period))
		case c.Command[1] == "sidecar":
			started = append(started, c.Command)
		}
	}
	timeline := []string{fmt.Sprintf("mains done by %s", at)}
	for i := len(started) - 1; i >= 0; i-- {
		argv := started[i]
		if i+1 < len(started) && len(flagValues(started[i+1], "--stopped-file")) > 0 &&
			!slices.Contains(flagValues(argv, "--done-file"), flagValues(started[i+1], "--stopped-file")[0]) {
			t.Errorf("%q does not wait for the stopped file of the sidecar started after it, %q", argv, started[i+1])
		}
		steps := time.Duration(1)
		if len(flagValues(argv, "--quit-url")) > 0 {
			steps = QuitStopSteps
		}
		begin := at + durationFlag(t, argv, "--stop-delay", 0)
		at = begin + steps*durationFlag(t, argv, "--grace", TandemGrace)
		timeline = append(timeline, fmt.Sprintf("%s stopped from %s, gone by %s", firstValue(argv, "--name"), begin, at))
		if at > period {
			t.Errorf("sidecar %s's stop ends at %s, after the kubelet's SIGKILL at %s (%s)", firstValue(argv, "--name"), at, period, strings.Join(timeline, "; "))
		}
	}
	return timeline
}

// durationFlag is the duration of flag in argv, otherwise when none is
// written.
func durationFlag(t *testing.T, argv []string, flag string, otherwise time.Duration) time.Duration {
	t.Helper()
	v := firstValue(argv, flag)
	if v == "" {
		return otherwise
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s %q: %v", flag, v, err)
	}
	return d
}

// A period too short for a sidecar's stop delay leaves its --grace a
// tenth of a second, not tandem's own 10 s: otel-collector-contrib waits
// 1 s (its preset's delay) in a 1 s period, whose half is its share.
func TestStopGraceAtLeastATenth(t *testing.T) {
	src := strings.Replace(grace3("Never", "1", "app:1", "app:1"), "    - {name: b, image: app:1, command: [/b]}\n", "", 1)
	src = strings.Replace(src, "tandem.sh/sidecars: a,b", "tandem.sh/sidecars: a", 1)
	src = strings.Replace(src, "{name: a, image: app:1,", "{name: a, image: otel/opentelemetry-collector-contrib:0.159.0,", 1)
	r, out := injectYAML(t, src, offline())
	if r.Status != Injected {
		t.Fatalf("report %q", r)
	}
	if got := [2]string{firstValue(listOf(t, out, "a", "command"), "--stop-delay"), firstValue(listOf(t, out, "a", "command"), "--grace")}; got != [2]string{"1s", "100ms"} {
		t.Errorf("--stop-delay and --grace %q; want 1s and 100ms", got)
	}
}
