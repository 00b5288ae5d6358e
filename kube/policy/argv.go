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

// grace shares the pod's termination grace period as inject's graceSplit
// does, in tenths of a second, with what the policy handles (no
// sidecar-grace or stop-delay annotations): each sidecar keeps its
// preset's grace (else 5 s), at least its stop's steps (3 with a quit
// call, else 1) of a second plus its stop delay, at most half the period;
// the mains get the rest.
func (g *generator) grace() []variable {
	pm := func(f func(presets.Preset) (string, bool)) string { return presetMap(g.opts.Presets, f) }
	all := "lists.range(size(" + v("names") + "))"
	return []variable{
		// The kubelet gives a pod with a negative period 1 s.
		{"period", "!has(object.spec.terminationGracePeriodSeconds) ? 30 : object.spec.terminationGracePeriodSeconds < 0 ? 1 : object.spec.terminationGracePeriodSeconds"},
		{"restart", "has(object.spec.restartPolicy) ? object.spec.restartPolicy : 'Always'"},
		{"quit", v("preset") + ".map(p, p in " + pm(quitOf) + " ? " + pm(quitOf) + "[p] : '')"},
		{"delay", v("preset") + ".map(p, p in " + pm(delayOf) + " ? " + pm(delayOf) + "[p] : 0)"},
		{"steps", v("quit") + ".map(q, q != '' ? 3 : 1)"},
		{"share", all + ".map(i, [[" + v("preset") + "[i] in " + pm(graceOf) + " ? " + pm(graceOf) + "[" + v("preset") + "[i]] : 50, " +
			v("steps") + "[i] * 10 + " + v("delay") + "[i]].max(), " + v("period") + " * 5].min())"},
		{"kept", "size(" + v("sidecars") + ") > 0 ? " + v("sidecars") + ".map(i, " + v("share") + "[i]).max() : 0"},
		{"mainGrace", v("period") + " > 0 ? " + v("period") + " * 10 - " + v("kept") + " : 0"},
		{"stopGrace", all + ".map(i, " + v("period") + " > 0 && (" + v("share") + "[i] - " + v("delay") + "[i]) / " + v("steps") + "[i] != 100 ? (" +
			v("share") + "[i] - " + v("delay") + "[i]) / " + v("steps") + "[i] : 0)"},
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
		signals := presetMap(g.opts.Presets, signalOf)
		s += " + (" + v("period") + " > 0 ? ['--outlive-main', string(" + v("period") + ") + 's'] : [])" +
			// What the pod states wins over the preset; TERM is the default.
			" + (" + at(v("signal")) + " != '' ? (" + at(v("signal")) + " != 'TERM' ? ['--termination-signal', string(" + at(v("signal")) + ")] : []) : " +
			at(v("preset")) + " in " + signals + " ? ['--termination-signal', string(" + signals + "[" + at(v("preset")) + "])] : [])" +
			" + ['--restart', 'always']"
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
