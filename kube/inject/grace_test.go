package inject

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/kube/presets"
)

// The pod's grace period is split: the sidecars keep tandem.sh/sidecar-grace
// (5 s, at most half the period) for their own stop, the mains get the rest;
// the sidecar's --grace is what is kept for it, unless that is tandem's
// default 10 s.
func TestGraceSplit(t *testing.T) {
	for _, tt := range []struct {
		name, spec, annotation string
		main, sidecar          time.Duration // --termination-grace, --grace (0: none written)
	}{
		{"default period and grace", "", "", 25 * time.Second, 5 * time.Second},
		{"a long period", "  terminationGracePeriodSeconds: 120\n", "", 115 * time.Second, 5 * time.Second},
		{"the annotation", "  terminationGracePeriodSeconds: 60\n", "20s", 40 * time.Second, 20 * time.Second},
		{"tandem's own default", "  terminationGracePeriodSeconds: 60\n", "10s", 50 * time.Second, 0},
		{"at most half the period", "  terminationGracePeriodSeconds: 10\n", "1m", 5 * time.Second, 5 * time.Second},
		{"no grace period", "  terminationGracePeriodSeconds: 0\n", "", 0, 0},
	} {
		src := pod(tt.spec + sprintf(twoContainers, "app:1"))
		if tt.annotation != "" {
			src = withAnnotation(tt.spec+sprintf(twoContainers, "app:1"), SidecarGraceKey, tt.annotation)
		}
		r, out := injectYAML(t, src, testOptions())
		if r.Status != Injected {
			t.Fatalf("%s: %s", tt.name, r)
		}
		mainCmd, sideCmd := strings.Join(listOf(t, out, "main", "command"), " "), strings.Join(listOf(t, out, "side", "command"), " ")
		for _, w := range []struct {
			cmd, flag string
			d         time.Duration
		}{{mainCmd, "--termination-grace", tt.main}, {sideCmd, "--grace", tt.sidecar}} {
			has := strings.Contains(w.cmd, w.flag+" ")
			switch {
			case w.d == 0 && has:
				t.Errorf("%s: %q has %s; want none", tt.name, w.cmd, w.flag)
			case w.d != 0 && !strings.Contains(w.cmd, fmt.Sprintf("%s %ds ", w.flag, int(w.d.Seconds()))):
				t.Errorf("%s: %q; want %s %s", tt.name, w.cmd, w.flag, w.d)
			}
		}
	}
}

// A tandem.sh/sidecar-grace that is not a duration is refused, naming it.
func TestGraceAnnotationRefused(t *testing.T) {
	r, _ := injectYAML(t, withAnnotation(sprintf(twoContainers, "app:1"), SidecarGraceKey, "5"), testOptions())
	if r.Status != Failed || !strings.Contains(r.String(), `tandem.sh/sidecar-grace: "5": expected a duration such as 5s or 1m`) {
		t.Errorf("report %q", r)
	}
}

// graceFlags are the main's --termination-grace and the sidecar's --grace
// in out (0 where none is written).
func graceFlags(t *testing.T, out string) (main, sidecar time.Duration) {
	t.Helper()
	read := func(argv []string, flag string) time.Duration {
		values := flagValues(argv, flag)
		if len(values) == 0 {
			return 0
		}
		d, err := time.ParseDuration(values[0])
		if err != nil {
			t.Fatalf("%s %q: %v", flag, values[0], err)
		}
		return d
	}
	return read(listOf(t, out, "main", "command"), "--termination-grace"), read(listOf(t, out, "side", "command"), "--grace")
}

// An annotation the split cannot keep is said, not changed silently, and
// the sidecar's stop always fits in what is kept for it: main grace plus
// the sidecar's --grace never exceed the period.
func TestGraceAnnotationAdjustedWithWarning(t *testing.T) {
	for _, tt := range []struct {
		name, spec, annotation string
		main, sidecar          time.Duration
		warning                string
	}{
		{"more than half", "  terminationGracePeriodSeconds: 10\n", "1m", 5 * time.Second, 5 * time.Second,
			"tandem.sh/sidecar-grace 1m is more than half the pod's grace period (10s): 5s kept for the sidecars"},
		{"less than a stop", "", "1ms", 29 * time.Second, time.Second,
			"tandem.sh/sidecar-grace 1ms is less than the 1s a sidecar's stop takes at least: 1s kept for the sidecars"},
		{"a period too short", "  terminationGracePeriodSeconds: 1\n", "", 500 * time.Millisecond, 500 * time.Millisecond,
			"the pod's grace period (1s) leaves its sidecars 500ms, less than the 1s a sidecar's stop takes at least: raise terminationGracePeriodSeconds"},
		{"a negative period", "  terminationGracePeriodSeconds: -1\n", "", 500 * time.Millisecond, 500 * time.Millisecond,
			"spec.terminationGracePeriodSeconds -1: Kubernetes gives a pod with a negative grace period 1s; the split is of 1s (set 0 for none, or the seconds the pod needs)"},
	} {
		src := pod(tt.spec + sprintf(twoContainers, "app:1"))
		if tt.annotation != "" {
			src = withAnnotation(tt.spec+sprintf(twoContainers, "app:1"), SidecarGraceKey, tt.annotation)
		}
		r, out := injectYAML(t, src, testOptions())
		if r.Status != Injected || !slices.Contains(r.Warnings, tt.warning) {
			t.Errorf("%s: report %q; want the warning %q", tt.name, r, tt.warning)
		}
		if main, sidecar := graceFlags(t, out); main != tt.main || sidecar != tt.sidecar {
			t.Errorf("%s: --termination-grace %s, --grace %s; want %s, %s", tt.name, main, sidecar, tt.main, tt.sidecar)
		}
	}
}

// A sidecar with a quit URL takes up to three of its --grace to stop
// (the call, the wait for it to leave, the stop signal and the wait
// before SIGKILL): its --grace is a third of the time kept for it.
func TestGraceSplitWithQuitURL(t *testing.T) {
	spec := sprintf(twoContainers, "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3")
	spec = strings.Replace(spec, "command: [/side]", `command: [/cloud-sql-proxy, --quitquitquit, "p:r:i"]`, 1)
	opts := testOptionsWith(func(o *Options) { o.Presets = presets.Builtin(); o.Resolver = nil })
	for _, tt := range []struct {
		annotation    string
		main, sidecar time.Duration
	}{
		{"", 25 * time.Second, 1600 * time.Millisecond},
		{"2s", 27 * time.Second, time.Second},
		{"15s", 15 * time.Second, 5 * time.Second},
	} {
		src := pod(spec)
		if tt.annotation != "" {
			src = withAnnotation(spec, SidecarGraceKey, tt.annotation)
		}
		r, out := injectYAML(t, src, opts)
		if r.Status != Injected || len(flagValues(listOf(t, out, "side", "command"), "--quit-url")) != 1 {
			t.Fatalf("%q: report %q; want the sidecar injected with its quit URL", tt.annotation, r)
		}
		main, sidecar := graceFlags(t, out)
		if main != tt.main || sidecar != tt.sidecar || main+3*sidecar > 30*time.Second {
			t.Errorf("%q: --termination-grace %s, --grace %s; want %s, %s, within the 30s period", tt.annotation, main, sidecar, tt.main, tt.sidecar)
		}
	}
}

// terminationGracePeriodSeconds as the API server reads it: a string or
// a fraction is refused, naming it; a huge number is as good as for ever,
// without overflow.
func TestGracePeriodValues(t *testing.T) {
	for _, v := range []string{`"30"`, "30.5", "thirty"} {
		r, _ := injectYAML(t, pod("  terminationGracePeriodSeconds: "+v+"\n"+sprintf(twoContainers, "app:1")), testOptions())
		want := "spec.terminationGracePeriodSeconds (line 8): " + strconv.Quote(strings.Trim(v, `"`)) + ": expected a whole number of seconds"
		if r.Status != Failed || !strings.Contains(r.String(), want) {
			t.Errorf("%s: report %q; want it refused with %q", v, r, want)
		}
	}
	r, out := injectYAML(t, pod("  terminationGracePeriodSeconds: 9223372036854775807\n"+sprintf(twoContainers, "app:1")), testOptions())
	if r.Status != Injected {
		t.Fatalf("report %q", r)
	}
	main, sidecar := graceFlags(t, out)
	outlive := flagValues(listOf(t, out, "side", "command"), "--outlive-main")
	if main < 1000*time.Hour || sidecar != 5*time.Second || len(outlive) != 1 || strings.HasPrefix(outlive[0], "-") {
		t.Errorf("--termination-grace %s, --grace %s, --outlive-main %q; want a long positive grace, 5s, a positive outlive", main, sidecar, outlive)
	}
}
