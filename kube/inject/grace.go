package inject

import (
	"fmt"
	"math"
	"time"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// SidecarGraceKey is the time of the pod's grace period kept for the
// sidecars' own stop: the mains get the rest (tandem main
// --termination-grace), so a main that uses all of it still leaves its log
// shipper time to flush.
const SidecarGraceKey = "tandem.sh/sidecar-grace"

// defaultSidecarGrace is what SidecarGraceKey says when absent.
const defaultSidecarGrace = 5 * time.Second

// minStopGrace is the shortest --grace inject gives a sidecar: less
// leaves a proxy no time to close its connections.
const minStopGrace = time.Second

// maxGraceSecs is the longest grace period a time.Duration holds; a
// longer one is as good as for ever, and is taken as this.
const maxGraceSecs = math.MaxInt64 / int64(time.Second)

// graceSplit is how a pod's termination grace period is shared.
type graceSplit struct {
	period  time.Duration // terminationGracePeriodSeconds (30 s when unset)
	sidecar time.Duration // kept for the sidecars' stop
	// stated is the annotation as written, "" for none; asked its value.
	stated string
	asked  time.Duration
}

// splitGrace reads the pod's grace period and tandem.sh/sidecar-grace. A
// period that is not a whole number, as the API server refuses it, or an
// annotation that is not a duration, is an error. fit then makes the
// split hold the sidecars' stop.
func splitGrace(spec, annotations *yaml.Node) (graceSplit, error) {
	g := graceSplit{period: defaultGraceSecs * time.Second, sidecar: defaultSidecarGrace}
	if n := yamlnode.Lookup(spec, "terminationGracePeriodSeconds"); n != nil && n.ShortTag() != "!!null" {
		var secs int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&secs) != nil {
			return g, fmt.Errorf("spec.terminationGracePeriodSeconds (line %d): %q: expected a whole number of seconds, e.g. 30 (the API server refuses anything else)", n.Line, n.Value)
		}
		if secs >= 0 {
			g.period = time.Duration(min(secs, maxGraceSecs)) * time.Second
		}
	}
	if text := yamlnode.ScalarAt(annotations, SidecarGraceKey); text != "" {
		d, err := time.ParseDuration(text)
		if err != nil || d < 0 {
			return g, fmt.Errorf("%s: %q: expected a duration such as 5s or 1m", SidecarGraceKey, text)
		}
		g.sidecar, g.stated, g.asked = d, text, d
	}
	return g, nil
}

// fit makes the time kept for the sidecars hold a sidecar's stop that
// takes steps times its --grace (3 with a quit URL: the call, the wait
// for it to leave, the stop signal; 1 without), at least minStopGrace
// each, within half the period. It says what it changed of the
// annotation, and when the period is too short.
func (g *graceSplit) fit(steps int) []string {
	if g.period <= 0 {
		return nil
	}
	var warnings []string
	need, half := time.Duration(steps)*minStopGrace, g.period/2
	if g.sidecar < need {
		if g.stated != "" {
			warnings = append(warnings, fmt.Sprintf("%s %s is less than the %s a sidecar's stop takes at least: %s kept for the sidecars",
				SidecarGraceKey, g.stated, need, min(need, half)))
		}
		g.sidecar = need
	}
	if g.sidecar > half {
		if g.stated != "" && g.asked > half {
			warnings = append(warnings, fmt.Sprintf("%s %s is more than half the pod's grace period (%s): %s kept for the sidecars",
				SidecarGraceKey, g.stated, g.period, half))
		}
		if need > half {
			warnings = append(warnings, fmt.Sprintf("the pod's grace period (%s) leaves its sidecars %s, less than the %s a sidecar's stop takes at least: raise terminationGracePeriodSeconds",
				g.period, half, need))
		}
		g.sidecar = half
	}
	return warnings
}

// mainGrace is each main's --termination-grace: the period less the
// sidecars' time; 0 (none) when the pod has no grace period.
func (g graceSplit) mainGrace() time.Duration {
	if g.period <= 0 {
		return 0
	}
	return g.period - g.sidecar
}

// sidecarStopGrace is the --grace of a sidecar whose stop takes steps
// times it, when it must be shorter than tandem's default 10 s to fit in
// the sidecars' time; 0 keeps the default.
func (g graceSplit) sidecarStopGrace(steps int) time.Duration {
	if g.period <= 0 || g.sidecar >= time.Duration(steps)*10*time.Second {
		return 0
	}
	// Tenths of a second: a command line a reader can check.
	return (g.sidecar / time.Duration(steps)).Truncate(100 * time.Millisecond)
}

// stopSteps is how many times its --grace sidecar c's stop takes.
func (c *container) stopSteps() int {
	if len(c.quitURLs) > 0 {
		return 3
	}
	return 1
}
