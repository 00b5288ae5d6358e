package inject

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/presets"
	"go.yaml.in/yaml/v3"
)

// errSkip carries the reason a pod template is left alone.
type errSkip struct {
	cause  SkipCause
	reason string
}

func (e errSkip) Error() string { return e.reason }

// container is one container to wrap, with everything that may fail
// already worked out, so that applying the plan cannot fail.
type container struct {
	node    *yaml.Node
	name    string
	sidecar bool
	// native: a sidecar that already is a native one (an init container
	// with restartPolicy: Always), which stays where it is.
	native bool
	// statedSignal is the stop signal its tandem.sh/stop-signal annotation
	// states, "" for none.
	statedSignal string
	program      *yaml.Node
	// terminationSignal is the signal the runtime sends on pod deletion,
	// "" for SIGTERM.
	terminationSignal string
	// preset is the known sidecar its image matched, nil for none.
	preset *presets.Match
	// argv is what it runs, as read (its preset's endpoints depend on it).
	argv []string
}

// plan is what injecting one pod template will do.
type plan struct {
	spec, meta *yaml.Node
	mains      []*container
	sidecars   []*container
	natives    []*container // named sidecars already native: wrapped in place
	// needs are the sidecars every main needs (tandem.sh/needs).
	needs    []string
	grace    graceSplit
	warnings []string
	// problems are what stops the injection; every one is reported, so
	// that one run shows every fix.
	problems []error
}

// makePlan checks the pod template and reads every program it needs. It
// changes nothing.
func makePlan(ctx context.Context, template *yaml.Node, opts Options) (*plan, error) {
	p, err := preparePlan(template, opts)
	if err != nil {
		return nil, err
	}
	for _, c := range p.toWrap(opts.Mode) {
		warning, err := c.read(ctx, opts)
		if err != nil {
			p.problems = append(p.problems, err)
		} else if warning != "" {
			p.warnings = append(p.warnings, warning)
		}
	}
	if err := errors.Join(p.problems...); err != nil {
		return nil, err
	}
	return p, nil
}

// preparePlan checks the pod template and sorts its containers, without
// reading any program. It stops at what leaves nothing to read; other
// problems go into the plan's.
func preparePlan(template *yaml.Node, opts Options) (*plan, error) {
	meta, spec := yamlnode.Lookup(template, "metadata"), yamlnode.Lookup(template, "spec")
	annotations := yamlnode.Lookup(meta, "annotations")
	if v := yamlnode.ScalarAt(annotations, InjectKey); v == "disabled" {
		return nil, errSkip{OptedOut, InjectKey + ": disabled"}
	}
	if v := yamlnode.ScalarAt(annotations, InjectedKey); v != "" {
		return nil, errSkip{AlreadyInjected, "already injected: " + InjectedKey + ": " + v}
	}
	ctrs := yamlnode.Lookup(spec, "containers")
	if ctrs == nil || ctrs.Kind != yaml.SequenceNode || len(ctrs.Content) == 0 {
		return nil, errors.New("the pod template has no containers list")
	}
	natives := nativeSidecars(spec)
	all := append(append([]*yaml.Node{}, ctrs.Content...), natives...)
	names, needs, matches, err := namedSidecars(all, ctrs.Content, annotations, opts)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, errSkip{NoSidecars, noSidecars(ctrs, opts.Sidecars)}
	}
	// A pod wrapped by hand also has the volume and names tandem adds:
	// say it is wrapped, not that a volume collides.
	if err := checkWrapped(spec); err != nil {
		return nil, err
	}
	if err := checkCollisions(spec); err != nil {
		return nil, err
	}
	p := &plan{spec: spec, meta: meta, needs: needs}
	stated, err := statedStopSignals(annotations, append(containerNames(ctrs.Content), containerNames(natives)...))
	p.problems = append(p.problems, checkShapes(meta, spec, all), err)
	var graceErr error
	p.grace, graceErr = splitGrace(spec, annotations)
	p.problems = append(p.problems, graceErr)
	for _, n := range ctrs.Content {
		name := yamlnode.ScalarAt(n, "name")
		c := &container{node: n, name: name, sidecar: slices.Contains(names, name), statedSignal: stated[name], preset: matchOf(matches, name)}
		if c.sidecar {
			p.sidecars = append(p.sidecars, c)
		} else {
			p.mains = append(p.mains, c)
		}
	}
	for _, n := range natives {
		if name := yamlnode.ScalarAt(n, "name"); slices.Contains(names, name) {
			p.natives = append(p.natives, &container{node: n, name: name, sidecar: true, native: true, statedSignal: stated[name], preset: matchOf(matches, name)})
		}
	}
	if len(p.mains) == 0 {
		return nil, fmt.Errorf("every container is named a sidecar (%s): a pod needs a main container whose end stops them", strings.Join(names, ", "))
	}
	return p, nil
}

// namedSidecars are the pod's sidecars (named by the annotation, by
// --sidecar, or by a preset), the ones the mains need (tandem.sh/needs,
// else the presets' essential ones), and the preset of each it matched.
func namedSidecars(all, containers []*yaml.Node, annotations *yaml.Node, opts Options) ([]string, []string, map[string]presets.Match, error) {
	matches, err := presetMatches(all, annotations, opts.Presets)
	if err != nil {
		return nil, nil, nil, err
	}
	matches = keepAMain(containers, matches)
	flagged := append(slices.Clone(opts.Sidecars), matchedNames(all, matches)...)
	names, err := sidecarNames(all, yamlnode.ScalarAt(annotations, SidecarsKey), flagged)
	if err != nil {
		return nil, nil, nil, err
	}
	stated := yamlnode.ScalarAt(annotations, NeedsKey)
	if yamlnode.Lookup(annotations, NeedsKey) != nil {
		needs, err := neededSidecars(stated, names)
		return names, needs, matches, err
	}
	return names, essentialByPreset(names, matches), matches, nil
}

// matchOf is name's preset, nil for none.
func matchOf(matches map[string]presets.Match, name string) *presets.Match {
	if m, ok := matches[name]; ok {
		return &m
	}
	return nil
}

// toWrap lists the containers whose command changes: all in classic mode,
// the sidecars alone in native mode unless the mains need them.
func (p *plan) toWrap(mode Mode) []*container {
	if mode == Native && len(p.needs) == 0 {
		return append(append([]*container{}, p.sidecars...), p.natives...)
	}
	return append(append(append([]*container{}, p.mains...), p.sidecars...), p.natives...)
}

// nativeSidecars are the pod's init containers with restartPolicy: Always.
func nativeSidecars(spec *yaml.Node) []*yaml.Node {
	var natives []*yaml.Node
	for _, n := range contentOf(yamlnode.Lookup(spec, "initContainers")) {
		if n.Kind == yaml.MappingNode && yamlnode.ScalarAt(n, "restartPolicy") == "Always" && yamlnode.ScalarAt(n, "name") != "" {
			natives = append(natives, n)
		}
	}
	return natives
}

// sidecarNames are the containers (ctrs: the containers, then the native
// sidecars) named by the annotation (each must exist) and those of
// --sidecar that this pod has, in the pod's order.
func sidecarNames(ctrs []*yaml.Node, annotation string, flagged []string) ([]string, error) {
	var have []string
	for _, n := range ctrs {
		if n.Kind != yaml.MappingNode || yamlnode.ScalarAt(n, "name") == "" {
			return nil, fmt.Errorf("containers: expected every item to be a mapping with a name (line %d)", n.Line)
		}
		have = append(have, yamlnode.ScalarAt(n, "name"))
	}
	wanted := map[string]bool{}
	for _, name := range strings.Split(annotation, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if !slices.Contains(have, name) {
			return nil, fmt.Errorf("%s names container %q, which this pod does not have (it has %s): fix the annotation", SidecarsKey, name, strings.Join(have, ", "))
		}
		wanted[name] = true
	}
	for _, name := range flagged {
		wanted[name] = true
	}
	var names []string
	for _, name := range have {
		if wanted[name] {
			names = append(names, name)
		}
	}
	return names, nil
}

// noSidecars says why a pod names no sidecars, and how to name them.
func noSidecars(ctrs *yaml.Node, flagged []string) string {
	reason := fmt.Sprintf("no sidecars named: annotate the pod template %s: \"NAME,...\" or pass --sidecar NAME", SidecarsKey)
	if len(flagged) == 0 {
		return reason
	}
	return fmt.Sprintf("%s; --sidecar %s names none of its containers (%s)", reason, strings.Join(flagged, ", "), strings.Join(containerNames(ctrs.Content), ", "))
}

// containerNames are the names of the containers, in order.
func containerNames(ctrs []*yaml.Node) []string {
	var have []string
	for _, n := range ctrs {
		have = append(have, yamlnode.ScalarAt(n, "name"))
	}
	return have
}

// checkWrapped refuses a pod one of whose containers already runs tandem.
func checkWrapped(spec *yaml.Node) error {
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range contentOf(yamlnode.Lookup(spec, list)) {
			command, _ := yamlnode.StringsOf(yamlnode.Lookup(c, "command"))
			if len(command) > 0 && path.Base(command[0]) == cmdline.Program && yamlnode.ScalarAt(c, "name") != InstallContainer {
				return fmt.Errorf("already wrapped: container %q runs tandem (%s): leave this pod's tandem command lines as they are (drop the sidecar annotation), or remove them to let inject write them",
					yamlnode.ScalarAt(c, "name"), strings.Join(command, " "))
			}
		}
	}
	return nil
}

// checkCollisions refuses a pod that already uses the names tandem adds.
func checkCollisions(spec *yaml.Node) error {
	for _, v := range contentOf(yamlnode.Lookup(spec, "volumes")) {
		if yamlnode.ScalarAt(v, "name") == VolumeName {
			return fmt.Errorf("the pod already has a volume named %q, which tandem adds: rename that volume", VolumeName)
		}
	}
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range contentOf(yamlnode.Lookup(spec, list)) {
			if yamlnode.ScalarAt(c, "name") == InstallContainer {
				return fmt.Errorf("the pod already has a container named %q, which tandem adds: rename that container", InstallContainer)
			}
			for _, m := range contentOf(yamlnode.Lookup(c, "volumeMounts")) {
				if yamlnode.ScalarAt(m, "mountPath") == MountPath {
					return fmt.Errorf("container %q already mounts something at %s, where tandem mounts its volume: move that mount", yamlnode.ScalarAt(c, "name"), MountPath)
				}
			}
		}
	}
	return nil
}

// checkShapes refuses fields that inject adds to but that are not what
// Kubernetes takes there, rather than replacing them.
func checkShapes(meta, spec *yaml.Node, ctrs []*yaml.Node) error {
	want := func(n *yaml.Node, kind yaml.Kind, field string) error {
		if n == nil || n.Kind == kind || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
			return nil
		}
		what := map[yaml.Kind]string{yaml.SequenceNode: "a list", yaml.MappingNode: "a mapping"}[kind]
		return fmt.Errorf("%s (line %d): expected %s", field, n.Line, what)
	}
	errs := []error{
		want(yamlnode.Lookup(meta, "annotations"), yaml.MappingNode, "metadata.annotations"),
		want(yamlnode.Lookup(spec, "volumes"), yaml.SequenceNode, "spec.volumes"),
		want(yamlnode.Lookup(spec, "initContainers"), yaml.SequenceNode, "spec.initContainers"),
	}
	for _, c := range ctrs {
		name := "container " + strconv.Quote(yamlnode.ScalarAt(c, "name"))
		errs = append(errs,
			want(yamlnode.Lookup(c, "volumeMounts"), yaml.SequenceNode, name+" volumeMounts"),
			want(yamlnode.Lookup(c, "lifecycle"), yaml.MappingNode, name+" lifecycle"))
	}
	return errors.Join(errs...)
}

func contentOf(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
