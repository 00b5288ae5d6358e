package policy

import (
	"github.com/tandem-sh/tandem/kube/inject"
)

// variable is one of the policy's named CEL expressions; each may read
// the ones before it.
type variable struct{ name, expr string }

// The annotations the policy reads (and the stop-signal ones, by prefix);
// any other tandem.sh/ one it leaves to the webhook.
var readKeys = []string{inject.SidecarsKey, inject.InjectKey, inject.PresetsKey}

// PolicyKey is the annotation that says why the policy left a pod alone.
const PolicyKey = inject.PolicyKey

// SkippedPrefix begins PolicyKey's value on a pod the policy left alone.
const SkippedPrefix = "skipped: "

// selection names the pod's sidecars and mains, by container index, as
// inject's plan does: the annotation, --sidecar, a preset's image (unless
// every container is a known sidecar).
func (g *generator) selection() []variable {
	all := "lists.range(size(" + v("names") + "))"
	return []variable{
		{"ann", "has(object.metadata.annotations) ? object.metadata.annotations : {}"},
		annotationErrors(),
		{"names", "object.spec.containers.map(c, c.name)"},
		{"named", str(inject.SidecarsKey) + " in " + v("ann") + " ? " + v("ann") + "[" + str(inject.SidecarsKey) +
			"].split(',').map(s, s.trim()).filter(s, s != '') : []"},
		{"presetsOn", boolLit(g.opts.Presets != nil) + " && !(" + str(inject.PresetsKey) + " in " + v("ann") + " && " +
			v("ann") + "[" + str(inject.PresetsKey) + "] == 'disabled')"},
		{"found", "object.spec.containers.map(c, " + presetMatch(g.opts.Presets, "c.image") + ")"},
		{"preset", v("presetsOn") + " && " + v("found") + ".exists(p, p == '') ? " + v("found") + " : " + v("found") +
			".map(p, '')"},
		{"isSidecar", all + ".map(i, " + v("names") + "[i] in " + v("named") + " || " + v("names") + "[i] in " +
			strList(g.opts.Sidecars) + " || " + v("preset") + "[i] != '')"},
		{"sidecars", all + ".filter(i, " + v("isSidecar") + "[i])"},
		{"mains", all + ".filter(i, !" + v("isSidecar") + "[i])"},
		// A pod with native sidecars of its own wants them wrapped, which
		// the policy does not do: wanted, so that it says so.
		{"wanted", "size(" + v("sidecars") + ") > 0 || size(" + v("named") + ") > 0 || " + nativeSidecars + " || size(" +
			v("annotationErrors") + ") > 0"},
		{"tags", "object.spec.containers.map(c, c.image.split('@')[0])" +
			".map(s, s.lastIndexOf(':') > s.lastIndexOf('/') ? s.substring(s.lastIndexOf(':') + 1) : '')"},
		{"release", v("tags") + ".map(t, t.matches('^v?[0-9]{1,9}([.][0-9]{1,9}){0,2}(-.*)?$')" +
			" ? (t.startsWith('v') ? t.substring(1) : t).split('-')[0].split('.').map(x, int(x)) : [])"},
		{"rest", v("tags") + ".map(t, t.indexOf('-') >= 0 ? t.substring(t.indexOf('-')) : '')"},
		{"signal", all + ".map(i, [" + str(inject.StopSignalKey) + " + " + nameAt("i") + "].map(k, k in " + v("ann") +
			" ? " + signalLookup(v("ann")+"[k]") + " : '')[0])"},
		{"program", all + ".map(i, has(object.spec.containers[i].command) ? object.spec.containers[i].command + " +
			"(has(object.spec.containers[i].args) ? object.spec.containers[i].args : []) : " +
			presetProgram(g.opts.Presets, "i") + ")"},
	}
}

// nativeSidecars: the pod has init containers with restartPolicy Always.
const nativeSidecars = "has(object.spec.initContainers) && " +
	"object.spec.initContainers.exists(c, has(c.restartPolicy) && c.restartPolicy == 'Always')"

func boolLit(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
