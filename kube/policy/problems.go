package policy

import (
	"strconv"
	"strings"

	"github.com/tandem-sh/tandem/kube/inject"
)

// problems is the variable that lists why the policy cannot inject the
// pod (empty: it can). Each says what, and where the pod can be injected
// instead, as the report of inject says why it refuses.
func (g *generator) problems() variable {
	return variable{"problems", strings.Join(append(annotationProblems(), g.containerProblems()...), " + ")}
}

// annotationProblems are the problems of the pod's tandem.sh/ annotations.
func annotationProblems() []string {
	all := "lists.range(size(" + v("names") + "))"
	signalKey, afterKey := str(inject.StopSignalKey), strconv.Itoa(len(inject.StopSignalKey))
	notRead := knownAnnotation("k") + " && !(k in " + strList(readKeys) + ") && !k.startsWith(" + signalKey + ")"
	presetsValue := v("ann") + "[" + str(inject.PresetsKey) + "]"
	return []string{
		v("named") + ".filter(n, !(n in " + v("names") + ")).map(n, " + notInPod(str(inject.SidecarsKey), "n") + ")",
		v("annotationErrors"),
		v("ann") + ".filter(k, " + notRead + ")" +
			".map(k, 'annotation ' + k + ' is read by the webhook and tandemctl inject, not by the policy')",
		v("ann") + ".filter(k, k.startsWith(" + signalKey + ") && !(k.substring(" + afterKey + ") in " + v("names") + "))" +
			".map(k, " + notInPod("k", "k.substring("+afterKey+")") + ")",
		all + ".filter(i, " + v("signal") + "[i] == " + str(badSignal) + ")" +
			".map(i, " + signalKey + " + " + v("names") +
			"[i] + ': expected a signal name or number that tandem can catch, e.g. QUIT')",
		"(" + str(inject.PresetsKey) + " in " + v("ann") + " && !(" + presetsValue + " in ['enabled', 'disabled'])" +
			" ? [" + str(inject.PresetsKey+": expected disabled or enabled") + "] : [])",
	}
}

// containerProblems are the problems of the pod's containers that the
// policy does not handle in its mode.
func (g *generator) containerProblems() []string {
	all := "lists.range(size(" + v("names") + "))"
	ctr := "object.spec.containers[i]"
	name, sidecar := "'container ' + "+v("names")+"[i]", "'sidecar ' + "+v("names")+"[i]"
	unsupported := g.unsupportedPresets(g.opts.Mode == inject.Native)
	parts := []string{
		"(size(" + v("mains") + ") == 0 ? ['every container is a sidecar: a pod needs a main whose end stops them'] : [])",
		"(" + nativeSidecars + " ? ['the pod has native sidecars (init containers with restartPolicy: Always), " +
			"which the policy does not wrap'] : [])",
		all + ".filter(i, size(" + v("program") + "[i]) == 0).map(i, " + name +
			" + ' has no command, and no preset knows what its image runs: a policy reads no registry; give it a command')",
		all + ".filter(i, has(" + ctr + ".lifecycle) && has(" + ctr + ".lifecycle.stopSignal))" +
			".map(i, " + name + " + ' states lifecycle.stopSignal, which the policy does not read')",
		v("sidecars") + ".filter(i, " + v("preset") + "[i] in " + unsupported + ")" +
			".map(i, " + sidecar + " + ' (preset ' + " + v("preset") + "[i] + '): ' + " + unsupported + "[" + v("preset") +
			"[i]])",
		g.collisions(),
		"object.spec.containers.filter(c, has(c.command) && size(c.command) > 0 && " +
			"c.command[0].split('/')[size(c.command[0].split('/')) - 1] == 'tandem')" +
			".map(c, 'container ' + c.name + ' already runs tandem')",
	}
	if g.opts.Mode == inject.Native {
		return append(parts, programFromInit(ctr, sidecar),
			v("sidecars")+".filter(i, has("+ctr+".lifecycle) && has("+ctr+".lifecycle.preStop))"+
				".map(i, "+sidecar+" + ' has a preStop hook, which the policy does not handle in native mode')",
			v("sidecars")+".filter(i, has("+ctr+".readinessProbe) && !has("+ctr+".startupProbe))"+
				".map(i, "+sidecar+" + ' has a readinessProbe and no startupProbe: in native mode it becomes a start hook, "+
				"which the policy does not write; give it a startupProbe')")
	}
	return append(parts, v("sidecars")+".filter(i, has("+ctr+".readinessProbe) || has("+ctr+".startupProbe))"+
		".map(i, "+sidecar+" + ' has a probe, which becomes a start hook in classic mode, which the policy does not write')")
}

// programFromInit is the CEL of native mode's refusal of a sidecar whose
// program is on a volume one of the pod's init containers mounts (Argo
// Workflows' step pods: its init copies the executor every container runs):
// inject starts such a sidecar after that init container, which the
// policy's patch, putting the sidecars first, does not.
func programFromInit(ctr, sidecar string) string {
	program := ctr + ".command[0]"
	onVolume := "m, " + program + ".startsWith(" + mountDir("m.mountPath") + " + '/') && " + mountDir("m.mountPath") + " != '/'"
	writtenByInit := "has(object.spec.initContainers) && object.spec.initContainers.exists(c, has(c.volumeMounts) && " +
		"c.volumeMounts.exists(w, w.name == m.name))"
	return v("sidecars") + ".filter(i, has(" + ctr + ".command) && size(" + ctr + ".command) > 0 && has(" + ctr +
		".volumeMounts) && " + ctr + ".volumeMounts.exists(" + onVolume + " && " + writtenByInit + "))" +
		".map(i, " + sidecar + " + ' runs its program from a volume an init container mounts: in native mode it must " +
		"start after that init container, which the policy does not arrange; the webhook and tandemctl inject do')"
}

// unsupportedPresets is a CEL map from the presets the policy cannot
// inject to why.
func (g *generator) unsupportedPresets(native bool) string {
	var entries []string
	for _, p := range g.presetList() {
		if why := unsupported(p, native); why != "" {
			entries = append(entries, str(p.Name)+": "+str(why))
		}
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// collisions: the names and paths tandem adds must be free.
func (g *generator) collisions() string {
	volumes, paths := []string{inject.VolumeName}, []string{inject.MountPath}
	if g.opts.Install == inject.ImageVolume {
		volumes, paths = append(volumes, inject.BinVolumeName), append(paths, inject.BinMountPath)
	}
	ctrs := "object.spec.containers + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
	parts := []string{
		"(has(object.spec.volumes) ? object.spec.volumes : []).filter(x, x.name in " + strList(volumes) +
			").map(x, 'the pod already has a volume named ' + x.name + ', which tandem adds')",
		"(" + ctrs + ").filter(c, has(c.volumeMounts) && c.volumeMounts.exists(m, " + mountDir("m.mountPath") + " in " +
			strList(paths) + ")).map(c, 'container ' + c.name + ' already mounts something where tandem mounts its volume')",
	}
	if g.opts.Install != inject.ImageVolume {
		parts = append(parts, "(("+ctrs+").exists(c, c.name == "+str(inject.InstallContainer)+")"+
			" ? ["+str("the pod already has a container named "+inject.InstallContainer)+"] : [])")
	}
	return strings.Join(parts, " + ")
}

// notInPod is the CEL of the refusal of an annotation (key, a CEL string)
// naming a container (name, a CEL string) the pod's containers do not
// include: an init container that runs to completion is said to be one,
// as inject says it.
func notInPod(key, name string) string {
	isInit := "has(object.spec.initContainers) && object.spec.initContainers.exists(c, c.name == " + name +
		" && !(has(c.restartPolicy) && c.restartPolicy == 'Always'))"
	return "(" + isInit + " ? " + key + " + ' names ' + " + name +
		" + ', an init container that runs to completion before the containers start: " +
		"tandem wraps containers, not it; remove it from the annotation' : " + key + " + ' names container ' + " + name +
		" + ', which this pod does not have')"
}

// mountDir is the CEL of the directory mountPath names, as inject reads
// it (path.Clean from the root): /run/tandem/, //run/tandem and
// run/./tandem are /run/tandem.
func mountDir(mountPath string) string {
	return "'/' + " + mountPath + ".split('/').filter(s, s != '' && s != '.').join('/')"
}
