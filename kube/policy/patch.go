package policy

import (
	"maps"
	"slices"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/kube/inject"
)

// patch is the CEL of the policy's one JSON patch: the whole injection
// when the pod names sidecars and the policy can inject it, the
// tandem.sh/policy annotation when it names sidecars and cannot, nothing
// otherwise. JSON patch operations apply in order, and every expression
// reads the pod as it came: the containers are rewritten where they are,
// then moved.
func (g *generator) patch() string {
	none := "[JSONPatch{}].filter(p, false)"
	inject := g.rewrite() + " + " + g.volumes() + " + " + g.inits() + " + " + g.moves() + " + " + g.annotate() + " + " +
		g.argoKillCommands()
	mark := annotations(map[string]string{PolicyKey: str(SkippedPrefix) + " + " + v("problems") + ".join('; ')"}, nil)
	return v("wanted") + " && size(" + v("problems") + ") == 0 ? " + inject + " : " + v("wanted") + " ? " + mark + " : " + none
}

func op(operation, path, value string) string {
	return "JSONPatch{op: '" + operation + "', path: " + path + ", value: " + value + "}"
}

// rewrite wraps every container in place: its command, its program as its
// args, the mounts, and in native mode a sidecar's restartPolicy and what
// holds the next containers until it is ready.
func (g *generator) rewrite() string {
	at := "'/spec/containers/' + string(i)"
	// A sidecar under Argo's executor keeps it in front of tandem, its
	// program after.
	program, executor := v("program")+"[i]", v("executor")+"[i]"
	front := "lists.range(" + executor + ").map(j, " + program + "[j])"
	rest := "lists.range(size(" + program + ") - " + executor + ").map(j, " + program + "[j + " + executor + "])"
	command := v("isSidecar") + "[i] ? " + front + " + " + v("sidecarArgv") + "[" + v("sidecars") + ".indexOf(i)] : " +
		v("mainArgv") + "[i]"
	ops := "[" + op("add", at+" + '/command'", command) + ", " + op("add", at+" + '/args'", rest) + "]"
	mounts := g.mounts("Object.spec.containers.volumeMounts")
	var each []string
	for _, m := range mounts {
		each = append(each, op("add", at+" + '/volumeMounts/-'", m))
	}
	ops += " + (has(object.spec.containers[i].volumeMounts) ? [" + strings.Join(each, ", ") + "] : [" +
		op("add", at+" + '/volumeMounts'", "["+strings.Join(mounts, ", ")+"]") + "])"
	if g.opts.Mode == inject.Native {
		ops += " + (" + v("isSidecar") + "[i] ? [" + op("add", at+" + '/restartPolicy'", "'Always'") + "] + " +
			g.holdNextStart(at) + " : [])"
	}
	return "lists.range(size(" + v("names") + ")).map(i, " + ops + ").flatten()"
}

// mounts are the install's volume mounts, as objects of type.
func (g *generator) mounts(typ string) []string {
	m := []string{typ + "{name: " + str(inject.VolumeName) + ", mountPath: " + str(inject.MountPath) + "}"}
	if g.opts.Install == inject.ImageVolume {
		m = append(m, typ+"{name: "+str(inject.BinVolumeName)+", mountPath: "+str(inject.BinMountPath)+", readOnly: true}")
	}
	return m
}

func (g *generator) volumes() string {
	vols := []string{"Object.spec.volumes{name: " + str(inject.VolumeName) + ", emptyDir: Object.spec.volumes.emptyDir{}}"}
	if g.opts.Install == inject.ImageVolume {
		vols = append(vols, "Object.spec.volumes{name: "+str(inject.BinVolumeName)+", image: Object.spec.volumes.image{reference: "+
			str(g.opts.Image)+", pullPolicy: 'IfNotPresent'}}")
	}
	var each []string
	for _, vol := range vols {
		each = append(each, op("add", "'/spec/volumes/-'", vol))
	}
	return "(has(object.spec.volumes) ? [" + strings.Join(each, ", ") + "] : [" +
		op("add", "'/spec/volumes'", "["+strings.Join(vols, ", ")+"]") + "])"
}

// inits makes the init containers' list where tandem adds to it, and puts
// tandem-install first (init-copy).
func (g *generator) inits() string {
	copying := g.opts.Install != inject.ImageVolume
	if !copying && g.opts.Mode != inject.Native {
		return "[JSONPatch{}].filter(p, false)"
	}
	list := "(has(object.spec.initContainers) ? [JSONPatch{}].filter(p, false) : [" +
		op("add", "'/spec/initContainers'", "object.spec.containers.filter(c, false)") + "])"
	if copying {
		list += " + [" + op("add", "'/spec/initContainers/0'", g.installContainer()) + "]"
	}
	return list
}

// installContainer is inject's tandem-install, field for field.
func (g *generator) installContainer() string {
	t := "Object.spec.initContainers"
	sc := t + ".securityContext{runAsNonRoot: true, runAsUser: 65532, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, " +
		"capabilities: " + t + ".securityContext.capabilities{drop: ['ALL']}, seccompProfile: " + t +
		".securityContext.seccompProfile{type: 'RuntimeDefault'}}"
	argv := cmdline.Install{Binary: "/tandem", Dir: inject.MountPath}.Argv()
	return t + "{name: " + str(inject.InstallContainer) + ", image: " + str(g.opts.Image) + ", command: " + strList(argv) +
		", securityContext: " + sc + ", volumeMounts: [" + t + ".volumeMounts{name: " + str(inject.VolumeName) +
		", mountPath: " + str(inject.MountPath) + "}]}"
}

// moves puts the sidecars where the mode starts them first: in classic
// mode at the front of the containers, in their order (the k-th sidecar
// is still at its own index when those before it are moved); in native
// mode at the front of the init containers, after tandem-install.
func (g *generator) moves() string {
	o := v("sidecars") + "[k]"
	if g.opts.Mode == inject.Classic {
		return "lists.range(size(" + v("sidecars") + ")).filter(k, " + o + " != k)" +
			".map(k, JSONPatch{op: 'move', from: '/spec/containers/' + string(" + o +
			"), path: '/spec/containers/' + string(k)})"
	}
	base := "0"
	if g.opts.Install != inject.ImageVolume {
		base = "1"
	}
	return "lists.range(size(" + v("sidecars") + ")).map(k, JSONPatch{op: 'move', from: '/spec/containers/' + string(" + o +
		" - k), path: '/spec/initContainers/' + string(" + base + " + k)})"
}

// annotate marks the pod injected and keeps `kubectl logs` on its first
// main, as inject does.
func (g *generator) annotate() string {
	first := nameAt(v("mains") + "[0]")
	return annotations(map[string]string{inject.InjectedKey: str(g.opts.Version)}, map[string]string{inject.DefaultContainer: first})
}

// argoKillCommands gives each sidecar under Argo's executor the kill
// command Argo's controller then runs for it instead of its own, as inject
// does (kube/inject/executor.go), unless the pod names one; after annotate,
// which makes the annotations' map where the pod has none.
func (g *generator) argoKillCommands() string {
	key := str(inject.ArgoKillCommandKey) + " + " + nameAt("i")
	stated := "has(object.metadata.annotations) && " + key + " in object.metadata.annotations"
	patch := op("add", str("/metadata/annotations/"+jsonPointer(inject.ArgoKillCommandKey))+" + "+nameAt("i"),
		str(inject.ArgoKillCommand(g.opts.Install.BinaryPath())))
	return v("sidecars") + ".filter(i, " + v("executor") + "[i] > 0 && !(" + stated + ")).map(i, " + patch + ")"
}

// annotations is the CEL of patches that set set, and add add where the
// pod has none of that key, making the map when the pod has none.
func annotations(set, add map[string]string) string {
	var each, all []string
	for _, k := range sortedKeys(add) {
		patch := op("add", str("/metadata/annotations/"+jsonPointer(k)), add[k])
		each = append(each, "("+str(k)+" in object.metadata.annotations ? [JSONPatch{}].filter(p, false) : ["+patch+"])")
		all = append(all, str(k)+": "+add[k])
	}
	for _, k := range sortedKeys(set) {
		each = append(each, "["+op("add", str("/metadata/annotations/"+jsonPointer(k)), set[k])+"]")
		all = append(all, str(k)+": "+set[k])
	}
	return "(has(object.metadata.annotations) ? " + strings.Join(each, " + ") + " : [" +
		op("add", "'/metadata/annotations'", "{"+strings.Join(all, ", ")+"}") + "])"
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
