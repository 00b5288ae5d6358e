package policy

import (
	"strconv"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// presetList is the table's presets, none when presets are off.
func (g *generator) presetList() []presets.Preset {
	if g.opts.Presets == nil {
		return nil
	}
	return g.opts.Presets.Presets
}

// grace shares the pod's termination grace period by inject.FitShares,
// with inject's numbers, in tenths of a second, with what the policy
// handles (no sidecar-grace or stop-delay annotations): each sidecar asks
// its preset's grace, else the default; it keeps at least its least (its
// stop's steps of MinStopGrace and its preset's stop delay), at most half
// the period; as the sidecars stop one after another, their shares
// together are at most half the period (each keeps its least, and what it
// has above is cut by one fraction), and the mains get the rest.
func (g *generator) grace() []variable {
	pm := func(f func(presets.Preset) (string, bool)) string { return presetMap(g.opts.Presets, f) }
	all := "lists.range(size(" + v("names") + "))"
	sumOver := func(list string) string { return v("sidecars") + ".map(i, " + v(list) + "[i]).sum()" }
	at := func(name string) string { return v(name) + "[i]" }
	return []variable{
		// The kubelet gives a pod with a negative period 1 s.
		{"period", "!has(object.spec.terminationGracePeriodSeconds) ? 30 : object.spec.terminationGracePeriodSeconds < 0 ? 1 : object.spec.terminationGracePeriodSeconds"},
		{"restart", "has(object.spec.restartPolicy) ? object.spec.restartPolicy : 'Always'"},
		{"quit", v("preset") + ".map(p, p in " + pm(quitOf) + " ? " + pm(quitOf) + "[p] : '')"},
		{"delay", v("preset") + ".map(p, p in " + pm(delayOf) + " ? " + pm(delayOf) + "[p] : 0)"},
		{"steps", v("quit") + ".map(q, q != '' ? " + strconv.Itoa(inject.QuitStopSteps) + " : 1)"},
		{"halfPeriod", v("period") + " * 5"},
		{"least", all + ".map(i, " + at("steps") + " * " + tenths(inject.MinStopGrace) + " + " + at("delay") + ")"},
		{"asked", all + ".map(i, [[" + at("preset") + " in " + pm(graceOf) + " ? " + pm(graceOf) + "[" + at("preset") + "] : " +
			tenths(inject.DefaultSidecarGrace) + ", int(" + at("least") + ")].max(), int(" + v("halfPeriod") + ")].min())"},
		{"askedAll", sumOver("asked")},
		{"leastAll", sumOver("least")},
		{"share", all + ".map(i, " + choose([][2]string{
			{v("askedAll") + " <= " + v("halfPeriod"), at("asked")},
			{v("leastAll") + " <= " + v("halfPeriod"), at("least") + " + (" + at("asked") + " - " + at("least") + ") * (" +
				v("halfPeriod") + " - " + v("leastAll") + ") / (" + v("askedAll") + " - " + v("leastAll") + ")"},
		}, at("least")+" * "+v("halfPeriod")+" / "+v("leastAll")) + ")"},
		{"kept", sumOver("share")},
		{"mainGrace", v("period") + " > 0 ? " + v("period") + " * 10 - " + v("kept") + " : 0"},
		// At least a tenth: a period too short for the delay must not leave tandem's 10 s.
		{"stepGrace", all + ".map(i, [int((" + at("share") + " - " + at("delay") + ") / " + at("steps") + "), 1].max())"},
		{"stopGrace", all + ".map(i, " + v("period") + " > 0 && " + at("stepGrace") + " != " + tenths(inject.TandemGrace) + " ? " + at("stepGrace") + " : 0)"},
	}
}

// argv writes each container's tandem command line, as inject's decide
// does for the pods the policy handles.
func (g *generator) argv() []variable {
	bin := str(g.opts.Install.BinaryPath())
	done := func(name string) string { return str(inject.MountPath+"/") + " + " + name + " + '.done'" }
	stopped := func(name string) string { return str(inject.MountPath+"/") + " + " + name + " + '.stopped'" }
	mainGrace := "(" + v("mainGrace") + " > 0 ? ['--termination-grace', " + duration(v("mainGrace")) + "] : [])"
	return []variable{
		{"doneFiles", v("mains") + ".map(i, ['--done-file', " + done(nameAt("i")) + "]).flatten()"},
		{"stopsOnDone", g.stopsOnDone()},
		{"mainArgv", "lists.range(size(" + v("names") + ")).map(i, [" + bin + ", 'main', '--name', " + nameAt("i") + ", '--done-file', " +
			done(nameAt("i")) + "] + " + mainGrace + " + (" + v("signal") + "[i] != '' ? ['--termination-signal', string(" + v("signal") + "[i])] : []) + ['--'])"},
		// k is the sidecar's place among the sidecars, i its container's.
		{"sidecarArgv", "lists.range(size(" + v("sidecars") + ")).map(k, " + g.sidecarArgv(bin, stopped) + ")"},
	}
}

// stopsOnDone: tandem stops the sidecars once the mains are done; in
// native mode only where the mains end (else only the pod's deletion ends
// them, and the kubelet sends that).
func (g *generator) stopsOnDone() string {
	if g.opts.Mode == inject.Classic {
		return "true"
	}
	return v("restart") + " in ['Never', 'OnFailure']"
}

// sidecarArgv is the CEL of the k-th sidecar's command line.
func (g *generator) sidecarArgv(bin string, stopped func(string) string) string {
	i := v("sidecars") + "[k]"
	name := nameAt(i)
	next := nameAt(v("sidecars") + "[k + 1]")
	at := func(list string) string { return list + "[" + i + "]" }
	s := "[" + bin + ", 'sidecar', '--name', " + name + "] + " + v("doneFiles") +
		" + (" + v("stopsOnDone") + " && k + 1 < size(" + v("sidecars") + ") ? ['--done-file', " + stopped(next) + "] : [])" +
		" + (" + v("restart") + " == 'OnFailure' && " + v("stopsOnDone") + " ? ['--stop-when', 'success'] : " + v("restart") + " == 'Always' ? ['--stop-when', 'deletion'] : [])" +
		" + (" + at(v("delay")) + " > 0 ? ['--stop-delay', " + duration(at(v("delay"))) + "] : [])"
	if g.opts.Mode == inject.Classic {
		s += " + (" + v("period") + " > 0 ? ['--outlive-main', string(" + v("period") + ") + 's'] : [])"
	}
	// In either mode: the kubelet stops a native sidecar with it too. What
	// the pod states wins over the preset; TERM is the default.
	signals := presetMap(g.opts.Presets, signalOf)
	s += " + (" + at(v("signal")) + " != '' ? (" + at(v("signal")) + " != 'TERM' ? ['--termination-signal', string(" + at(v("signal")) + ")] : []) : " +
		at(v("preset")) + " in " + signals + " ? ['--termination-signal', string(" + signals + "[" + at(v("preset")) + "])] : [])"
	if g.opts.Mode == inject.Classic {
		s += " + ['--restart', 'always']"
	} else {
		// As inject: tandem restarts a native sidecar only during the pod's
		// deletion, when the kubelet does not.
		s += " + (size(" + v("doneFiles") + ") > 0 ? ['--restart', " + str(cmdline.RestartDuringDeletion) + "] : [])"
	}
	s += " + (" + v("stopsOnDone") + " && k > 0 ? ['--stopped-file', " + stopped(name) + "] : [])"
	if g.opts.Mode == inject.Classic {
		s += " + ['--main-start-timeout', '" + strconv.Itoa(int(inject.MainStartTimeout.Seconds())) + "s']"
	}
	return s + " + (" + at(v("stopGrace")) + " > 0 ? ['--grace', " + duration(at(v("stopGrace"))) + "] : [])" +
		" + (" + at(v("quit")) + " != '' ? ['--quit-url', string(" + at(v("quit")) + ")] : []) + ['--']"
}
