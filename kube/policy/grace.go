package policy

import (
	"strconv"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// graceRule is the numbers of inject's grace split (kube/inject's, by
// injectGrace), which the policy writes into its CEL; the policy's tests
// change one to see the comparison with inject fail.
type graceRule struct {
	defaultPeriod, negativePeriod time.Duration
	// divisor: the sidecars keep at most the period divided by it.
	divisor      int
	defaultShare time.Duration
	minStep      time.Duration
	quitSteps    int
	tandemGrace  time.Duration
}

// injectGrace is inject's grace rule.
func injectGrace() graceRule {
	return graceRule{
		defaultPeriod: inject.DefaultGracePeriod, negativePeriod: inject.NegativeGracePeriod,
		divisor: inject.SidecarsDivisor, defaultShare: inject.DefaultSidecarGrace, minStep: inject.MinStopGrace,
		quitSteps: inject.QuitStopSteps, tandemGrace: inject.TandemGrace,
	}
}

// grace shares the pod's termination grace period by inject.FitShares,
// with inject's numbers, in tenths of a second (inject.GraceResolution),
// with what the policy handles (no sidecar-grace or stop-delay
// annotations): each sidecar asks its preset's grace, else the default;
// it keeps at least its least (its stop's steps of MinStopGrace and its
// preset's stop delay), at most the sidecars' part of the period; as the
// sidecars stop one after another, their shares together are at most
// that part (each keeps its least, and what it has above is cut by one
// fraction), and the mains get the rest.
func (g *generator) grace() []variable {
	r := g.rule
	pm := func(f func(presets.Preset) (string, bool)) string { return presetMap(g.opts.Presets, f) }
	all := "lists.range(size(" + v("names") + "))"
	sumOver := func(list string) string { return v("sidecars") + ".map(i, " + v(list) + "[i]).sum()" }
	at := func(name string) string { return v(name) + "[i]" }
	stated := "object.spec.terminationGracePeriodSeconds"
	asked := at("preset") + " in " + pm(graceOf) + " ? " + pm(graceOf) + "[" + at("preset") + "] : " + tenths(r.defaultShare)
	cut := at("least") + " + (" + at("asked") + " - " + at("least") + ")" +
		" * (" + v("sidecarsMax") + " - " + v("leastAll") + ") / (" + v("askedAll") + " - " + v("leastAll") + ")"
	return []variable{
		{"period", "!has(" + stated + ") ? " + seconds(r.defaultPeriod) + " : " +
			stated + " < 0 ? " + seconds(r.negativePeriod) + " : " + stated},
		{"restart", "has(object.spec.restartPolicy) ? object.spec.restartPolicy : 'Always'"},
		{"quit", v("preset") + ".map(p, p in " + pm(quitOf) + " ? " + pm(quitOf) + "[p] : '')"},
		{"delay", v("preset") + ".map(p, p in " + pm(delayOf) + " ? " + pm(delayOf) + "[p] : 0)"},
		{"steps", v("quit") + ".map(q, q != '' ? " + strconv.Itoa(r.quitSteps) + " : 1)"},
		{"sidecarsMax", v("period") + " * " + tenths(time.Second) + " / " + strconv.Itoa(r.divisor)},
		{"least", all + ".map(i, " + at("steps") + " * " + tenths(r.minStep) + " + " + at("delay") + ")"},
		{"asked", all + ".map(i, [[" + asked + ", int(" + at("least") + ")].max(), int(" + v("sidecarsMax") + ")].min())"},
		{"askedAll", sumOver("asked")},
		{"leastAll", sumOver("least")},
		{"share", all + ".map(i, " + choose([][2]string{
			{v("askedAll") + " <= " + v("sidecarsMax"), at("asked")},
			{v("leastAll") + " <= " + v("sidecarsMax"), cut},
		}, at("least")+" * "+v("sidecarsMax")+" / "+v("leastAll")) + ")"},
		{"kept", sumOver("share")},
		{"mainGrace", v("period") + " > 0 ? " + v("period") + " * " + tenths(time.Second) + " - " + v("kept") + " : 0"},
		// At least a tenth: a period too short for the delay must not leave tandem's 10 s.
		{"stepGrace", all + ".map(i, [int((" + at("share") + " - " + at("delay") + ") / " + at("steps") + "), 1].max())"},
		{"stopGrace", all + ".map(i, " + v("period") + " > 0 && " + at("stepGrace") + " != " + tenths(r.tandemGrace) +
			" ? " + at("stepGrace") + " : 0)"},
	}
}

// seconds is d in whole seconds, as a CEL int literal.
func seconds(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }
