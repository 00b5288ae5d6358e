package inject

import (
	"context"
	"errors"
	"strings"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// templatePaths says where each Kubernetes workload keeps its pod template,
// by apiVersion and kind: a kind of the same name in another API group (a
// custom resource's Job) is not a Kubernetes workload, and passes through.
// The Pod is its own template.
var templatePaths = map[typeMeta][]string{
	{"v1", "Pod"}:              {},
	{"batch/v1", "Job"}:        {"spec", "template"},
	{"batch/v1", "CronJob"}:    {"spec", "jobTemplate", "spec", "template"},
	{"apps/v1", "Deployment"}:  {"spec", "template"},
	{"apps/v1", "StatefulSet"}: {"spec", "template"},
	{"apps/v1", "DaemonSet"}:   {"spec", "template"},
	{"apps/v1", "ReplicaSet"}:  {"spec", "template"},
}

// typeMeta is a resource's apiVersion and kind.
type typeMeta struct{ apiVersion, kind string }

// templatePath is where resource keeps its pod template, when it is a
// Kubernetes workload.
func templatePath(resource *yaml.Node) ([]string, bool) {
	keys, ok := templatePaths[typeMeta{yamlnode.ScalarAt(resource, "apiVersion"), yamlnode.ScalarAt(resource, "kind")}]
	return keys, ok
}

// workloadAPIVersion is the apiVersion inject rewrites kind under, or ""
// when no Kubernetes workload has that kind.
func workloadAPIVersion(kind string) string {
	for t := range templatePaths {
		if t.kind == kind {
			return t.apiVersion
		}
	}
	return ""
}

// Name is a resource's kind/name in lower case, as kubectl prints it.
func Name(resource *yaml.Node) string {
	meta := yamlnode.Lookup(resource, "metadata")
	name := yamlnode.ScalarAt(meta, "name")
	if name == "" && yamlnode.ScalarAt(meta, "generateName") != "" {
		name = yamlnode.ScalarAt(meta, "generateName") + "*"
	}
	if name == "" {
		name = "(no name)"
	}
	return strings.ToLower(yamlnode.ScalarAt(resource, "kind")) + "/" + name
}

// Resource injects one resource (a mapping node) in place. The node is
// changed only when the report says Injected; on a skip or a failure it is
// exactly as it was.
func Resource(ctx context.Context, resource *yaml.Node, opts Options) Report {
	return Prepare(resource, opts).Inject(ctx)
}

// Prepared is one resource whose injection is planned up to the reads of
// its images: Images lists them, so that a caller can read them all at
// once (concurrently) before Inject, which then waits on no registry after
// another.
type Prepared struct {
	resource, template *yaml.Node
	opts               Options
	// done is the report when there is nothing to read or write.
	done *Report
	plan *plan
	late *latePlan
}

// Prepare checks resource and plans its injection, reading no image and
// changing nothing.
func Prepare(resource *yaml.Node, opts Options) *Prepared {
	r := Report{Resource: Name(resource)}
	pr := &Prepared{resource: resource, opts: opts, done: &r}
	keys, reason, ok := podTemplate(resource)
	if !ok {
		r.Status, r.Cause, r.Reason = Skipped, NotAnObject, reason
		if yamlnode.ScalarAt(resource, "kind") != "" {
			r.Cause = NoPodTemplate
		}
		return pr
	}
	template := yamlnode.Path(resource, keys...)
	if template == nil || template.Kind != yaml.MappingNode {
		r.Status, r.Err = Failed, errors.New(strings.Join(keys, ".")+": expected a pod template")
		return pr
	}
	p, err := preparePlan(template, opts)
	var skip errSkip
	switch {
	case errors.As(err, &skip) && skip.cause == AlreadyInjected:
		if pr.late = planLate(template, opts); pr.late == nil {
			r.Status, r.Cause, r.Reason = Skipped, skip.cause, skip.reason
		} else {
			pr.done = nil
		}
	case errors.As(err, &skip):
		r.Status, r.Cause, r.Reason = Skipped, skip.cause, skip.reason
		if len(keys) > 0 && yamlnode.ScalarAt(yamlnode.Path(resource, "metadata", "annotations"), SidecarsKey) != "" &&
			yamlnode.ScalarAt(yamlnode.Path(template, "metadata", "annotations"), SidecarsKey) == "" {
			kind := yamlnode.ScalarAt(resource, "kind")
			r.Reason += "; the " + SidecarsKey + " annotation is on the " + kind + "'s metadata: it belongs on its pod template's (" + strings.Join(keys, ".") + ".metadata.annotations)"
		}
	case err != nil:
		r.Status, r.Err = Failed, err
	default:
		pr.template, pr.plan, pr.done = template, p, nil
	}
	return pr
}

// podTemplate is where resource keeps its pod template, or why it has
// none.
func podTemplate(resource *yaml.Node) (keys []string, reason string, ok bool) {
	kind, apiVersion := yamlnode.ScalarAt(resource, "kind"), yamlnode.ScalarAt(resource, "apiVersion")
	keys, ok = templatePath(resource)
	switch {
	case kind == "":
		return nil, "no kind: not a Kubernetes object", false
	case !ok && workloadAPIVersion(kind) != "":
		return nil, "apiVersion " + apiVersion + " " + kind + " is not the Kubernetes " + kind + " (" + workloadAPIVersion(kind) + "): left as it is", false
	case !ok:
		return nil, "kind " + kind + " has no pod template", false
	}
	return keys, "", true
}

// Inject reads the images the plan needs and rewrites the resource; call
// it once. The plan changed nothing and apply cannot fail: a resource is
// either rewritten whole or left exactly as it was.
func (pr *Prepared) Inject(ctx context.Context) Report {
	if pr.done != nil {
		return *pr.done
	}
	r := Report{Resource: Name(pr.resource)}
	if pr.late != nil {
		pr.late.apply()
		return pr.late.report(r)
	}
	p := pr.plan
	if err := p.read(ctx, pr.opts); err != nil {
		r.Status, r.Err = Failed, err
		return r
	}
	p.decide(pr.opts)
	p.apply(pr.template, pr.opts)
	// A container moved in front of another may now use an alias before
	// its anchor.
	yamlnode.ExpandForwardAliases(pr.resource)
	r.Status, r.Warnings = Injected, append(p.warnings, p.podFailureWarnings(pr.resource)...)
	for _, c := range p.mains {
		r.Mains = append(r.Mains, c.name)
	}
	for _, c := range p.sidecars {
		r.Sidecars = append(r.Sidecars, c.name)
	}
	for _, c := range p.natives {
		r.Natives = append(r.Natives, c.name)
	}
	r.Presets = p.presetNotes()
	return r
}
