package inject

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The pod's grace period is split: the sidecars keep tandem.sh/sidecar-grace
// (5 s, at most half the period) for their own stop, the mains get the rest.
func TestGraceSplit(t *testing.T) {
	for _, tt := range []struct {
		name, spec, annotation string
		main, sidecar          time.Duration // --termination-grace, --grace (0: none written)
	}{
		{"default period and grace", "", "", 25 * time.Second, 5 * time.Second},
		{"a long period", "  terminationGracePeriodSeconds: 120\n", "", 115 * time.Second, 5 * time.Second},
		{"the annotation", "  terminationGracePeriodSeconds: 60\n", "20s", 40 * time.Second, 0},
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
