package inject

import (
	"fmt"
	"strconv"
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

// graceSplit is how a pod's termination grace period is shared.
type graceSplit struct {
	period  time.Duration // terminationGracePeriodSeconds (30 s when unset)
	sidecar time.Duration // kept for the sidecars: each one's --grace
}

// splitGrace reads the pod's grace period and tandem.sh/sidecar-grace (at
// most half the period). A value that is not a duration is an error.
func splitGrace(spec, annotations *yaml.Node) (graceSplit, error) {
	g := graceSplit{period: defaultGraceSecs * time.Second, sidecar: defaultSidecarGrace}
	if n := yamlnode.Lookup(spec, "terminationGracePeriodSeconds"); n != nil {
		if secs, err := strconv.Atoi(n.Value); err == nil && secs >= 0 {
			g.period = time.Duration(secs) * time.Second
		}
	}
	if text := yamlnode.ScalarAt(annotations, SidecarGraceKey); text != "" {
		d, err := time.ParseDuration(text)
		if err != nil || d < 0 {
			return g, fmt.Errorf("%s: %q: expected a duration such as 5s or 1m", SidecarGraceKey, text)
		}
		g.sidecar = d
	}
	g.sidecar = min(g.sidecar, g.period/2)
	return g, nil
}

// mainGrace is each main's --termination-grace: the period less the
// sidecars' time; 0 (none) when the pod has no grace period.
func (g graceSplit) mainGrace() time.Duration {
	if g.period <= 0 {
		return 0
	}
	return g.period - g.sidecar
}

// sidecarStopGrace is each sidecar's --grace when it must be shorter than
// tandem's default 10 s to fit in the sidecars' time; 0 keeps the default.
func (g graceSplit) sidecarStopGrace() time.Duration {
	if g.period <= 0 || g.sidecar >= 10*time.Second {
		return 0
	}
	return max(g.sidecar, time.Second)
}
