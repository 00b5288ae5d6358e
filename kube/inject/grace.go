package inject

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// SidecarGraceKey is the time of the pod's grace period kept for each
// sidecar's own stop: the mains get the rest (tandem main
// --termination-grace), so a main that uses all of it still leaves its log
// shipper time to flush. SidecarGraceKey + ".CONTAINER" states it for one
// sidecar; a preset's grace is the default for its sidecar.
const SidecarGraceKey = "tandem.sh/sidecar-grace"

// The numbers of the grace split (FitShares has its rule), which the
// admission policy writes into its CEL.
const (
	// DefaultSidecarGrace is a sidecar's share when nothing states one.
	DefaultSidecarGrace = 5 * time.Second
	// MinStopGrace is the shortest --grace inject gives a sidecar, each
	// step of its stop: less leaves a proxy no time to close its
	// connections.
	MinStopGrace = time.Second
	// QuitStopSteps is how many times its --grace the stop of a sidecar
	// with a quit URL takes: the call, the wait for it to leave, the stop
	// signal and the wait before SIGKILL. One without takes one.
	QuitStopSteps = 3
	// TandemGrace is tandem sidecar's --grace when none is written.
	TandemGrace = 10 * time.Second
	// DefaultGracePeriod is a pod's terminationGracePeriodSeconds when it
	// states none, as the API server defaults it.
	DefaultGracePeriod = 30 * time.Second
	// NegativeGracePeriod is the period the kubelet gives a pod whose
	// terminationGracePeriodSeconds is negative.
	NegativeGracePeriod = time.Second
	// SidecarsDivisor: the sidecars' shares together keep at most the
	// period divided by it; the mains keep the rest.
	SidecarsDivisor = 2
	// GraceResolution is the resolution of a cut share and of a sidecar's
	// --grace: a command line a reader can check.
	GraceResolution = 100 * time.Millisecond
)

// maxGraceSecs is the longest grace period a time.Duration holds; a
// longer one is as good as for ever, and is taken as this.
const maxGraceSecs = math.MaxInt64 / int64(time.Second)

// graceShare is the time kept for one sidecar's stop.
type graceShare struct {
	d time.Duration
	// said is what stated it, as a warning names it ("" for the
	// default), asked what it asked, who whose it is.
	said, who string
	asked     time.Duration
}

// graceSplit is how a pod's termination grace period is shared.
type graceSplit struct {
	period time.Duration // terminationGracePeriodSeconds (30 s when unset, 1 s when negative)
	note   string        // how period was read, when not as written
	// kept is the time kept for the sidecars' stops, which come one after
	// another once the mains have ended: the sum of their shares.
	kept time.Duration
	// podWide is the pod's tandem.sh/sidecar-grace (said "" when unstated),
	// own each sidecar's tandem.sh/sidecar-grace.CONTAINER; shares are
	// what fit kept of them, by sidecar.
	podWide     graceShare
	own, shares map[string]graceShare
	// delays are the sidecars' stop delays (stopdelay.go): each comes out
	// of its sidecar's share, before its stop.
	delays map[string]time.Duration
}

// splitGrace reads the pod's grace period and the sidecar-grace
// annotations. A period that is not a whole number, as the API server
// refuses it, an annotation that is not a duration, or one that names no
// sidecar, is an error. fit then makes the split hold the sidecars' stop.
func splitGrace(spec, annotations *yaml.Node, sidecars []string) (graceSplit, error) {
	g := graceSplit{period: DefaultGracePeriod,
		podWide: graceShare{d: DefaultSidecarGrace, who: "the sidecars"}, own: map[string]graceShare{}}
	if n := yamlnode.Lookup(spec, "terminationGracePeriodSeconds"); n != nil && n.ShortTag() != "!!null" {
		var secs int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&secs) != nil {
			return g, fmt.Errorf("spec.terminationGracePeriodSeconds (line %d): %q: expected a whole number of seconds, e.g. 30 (the API server refuses anything else)", n.Line, n.Value)
		}
		g.period = time.Duration(min(secs, maxGraceSecs)) * time.Second
		if secs < 0 {
			// The API server keeps it, and the kubelet gives such a pod 1 s.
			g.period = NegativeGracePeriod
			g.note = fmt.Sprintf("spec.terminationGracePeriodSeconds %d: Kubernetes gives a pod with a negative grace period 1s; the split is of 1s (set 0 for none, or the seconds the pod needs)", secs)
		}
	}
	var errs []error
	for i := 0; annotations != nil && annotations.Kind == yaml.MappingNode && i+1 < len(annotations.Content); i += 2 {
		key, text := annotations.Content[i].Value, annotations.Content[i+1].Value
		name, own := strings.CutPrefix(key, SidecarGraceKey+".")
		if key != SidecarGraceKey && !own {
			continue
		}
		d, err := time.ParseDuration(text)
		switch {
		case own && !slices.Contains(sidecars, name):
			errs = append(errs, fmt.Errorf("%s names container %q, which is not a sidecar of this pod (sidecars: %s): fix the annotation, or name the container in %s",
				key, name, strings.Join(sidecars, ", "), SidecarsKey))
		case err != nil || d < 0:
			errs = append(errs, fmt.Errorf("%s: %q: expected a duration such as 5s or 1m", key, text))
		case own:
			g.own[name] = graceShare{d: d, said: key + " " + text, who: "sidecar " + strconv.Quote(name), asked: d}
		default:
			g.podWide = graceShare{d: d, said: key + " " + text, who: "the sidecars", asked: d}
		}
	}
	return g, errors.Join(errs...)
}

// shareOf is the time sidecar c asks for its stop: its own annotation,
// else the pod's, else its preset's grace, else the default.
func (g *graceSplit) shareOf(c *container) graceShare {
	if s, ok := g.own[c.name]; ok {
		return s
	}
	if g.podWide.said != "" || c.preset == nil {
		return g.podWide
	}
	if d, ok := c.preset.StopGrace(); ok {
		return graceShare{d: d, said: fmt.Sprintf("preset %s's grace %s", c.preset.Name, c.preset.Grace), who: "sidecar " + strconv.Quote(c.name), asked: d}
	}
	return g.podWide
}

// fit shares the period among sidecars (in the order they start) by
// FitShares, and says what it changed of what was stated, and when the
// period is too short.
func (g *graceSplit) fit(sidecars []*container) []string {
	if g.period <= 0 {
		return nil
	}
	var warnings []string
	if g.note != "" {
		warnings = append(warnings, g.note)
	}
	asked := make([]graceShare, len(sidecars))
	wanted, least := make([]time.Duration, len(sidecars)), make([]time.Duration, len(sidecars))
	for i, c := range sidecars {
		asked[i] = g.shareOf(c)
		wanted[i], least[i] = asked[i].d, time.Duration(c.stopSteps())*MinStopGrace+g.delays[c.name]
	}
	fitted := FitShares(g.period, wanted, least)
	g.kept, g.shares = 0, map[string]graceShare{}
	for i, c := range sidecars {
		s := asked[i]
		s.d, g.kept = fitted[i], g.kept+fitted[i]
		g.shares[c.name] = s
		if s.said != "" && s.asked < least[i] {
			warnings = appendNew(warnings, fmt.Sprintf("%s is less than the %s a sidecar's stop takes at least: %s kept for %s",
				s.said, least[i], s.d, s.who))
		}
	}
	if len(sidecars) == 1 {
		return append(warnings, g.loneWarnings(asked[0], least[0])...)
	}
	return append(warnings, g.cutWarnings(sidecars, asked, least)...)
}

// appendNew appends w to warnings unless it is there.
func appendNew(warnings []string, w string) []string {
	if slices.Contains(warnings, w) {
		return warnings
	}
	return append(warnings, w)
}

// loneWarnings say how the share of a pod's only sidecar was cut to half
// the period: when it was stated, and when the period is too short for
// its stop.
func (g *graceSplit) loneWarnings(asked graceShare, least time.Duration) []string {
	var warnings []string
	half := g.period / SidecarsDivisor
	if asked.said != "" && asked.asked > half {
		warnings = append(warnings, fmt.Sprintf("%s is more than half the pod's grace period (%s): %s kept for %s",
			asked.said, g.period, half, asked.who))
	}
	if least > half {
		warnings = append(warnings, fmt.Sprintf("the pod's grace period (%s) leaves its sidecars %s, less than the %s a sidecar's stop takes at least: raise terminationGracePeriodSeconds",
			g.period, half, least))
	}
	return warnings
}

// mainGrace is each main's --termination-grace: the period less the
// sidecars' shares, all of them, as they stop one after another; 0 (none) when the pod has no grace period.
func (g graceSplit) mainGrace() time.Duration {
	if g.period <= 0 {
		return 0
	}
	return g.period - g.kept
}

// sidecarStopGrace is the --grace of sidecar c: the time kept for it
// after its stop delay divided among the steps of its stop, in tenths of
// a second (a command line a reader can check), at least a tenth (a
// period too short for the delay must not leave tandem's 10 s); 0 when
// that is tandem's default or the pod has no grace period.
func (g graceSplit) sidecarStopGrace(c *container) time.Duration {
	s, ok := g.shares[c.name]
	if g.period <= 0 || !ok {
		return 0
	}
	if d := max(((s.d - g.delays[c.name]) / time.Duration(c.stopSteps())).Truncate(GraceResolution), GraceResolution); d != TandemGrace {
		return d
	}
	return 0
}

// stopSteps is how many times its --grace sidecar c's stop takes.
func (c *container) stopSteps() int {
	if len(c.quitURLs) > 0 {
		return QuitStopSteps
	}
	return 1
}
