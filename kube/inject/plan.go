package inject

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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

// container is one container of the pod: what the plan read of it, and
// what it decided, so that applying the plan only writes.
type container struct {
	// orig is the container as the pod lists it; node is what the plan
	// reads and apply writes: orig itself, or a copy with its aliases and
	// merge keys expanded (expand.go), which apply puts in its place.
	orig, node *yaml.Node
	name       string
	sidecar    bool
	// native: a sidecar that already is a native one (an init container
	// with restartPolicy: Always), which stays where it is.
	native bool
	// statedSignal is the stop signal its tandem.sh/stop-signal annotation
	// states, "" for none.
	statedSignal string
	// What checkReads found: the stop signal the manifest states (and
	// whether it does), whether c is a classic sidecar, and which of its
	// image's fields must be read; checkErr is what it refused.
	stopSignal              string
	signalStated            bool
	classicSidecar          bool
	readProgram, readSignal bool
	checkErr                error
	program                 *yaml.Node
	// terminationSignal is the signal the runtime sends on pod deletion,
	// "" for SIGTERM.
	terminationSignal string
	// preset is the known sidecar its image matched, nil for none;
	// presetImage the ENTRYPOINT and CMD it states for the image's tag,
	// when c has no command (nil: read from the registry, if at all).
	preset      *presets.Match
	presetImage *ImageConfig
	// argv is what it runs, as read (its preset's endpoints depend on it);
	// executor what runs tandem in its place, kept in front of it
	// (executor.go), nil for none.
	argv, executor []string
	// Its preset's readiness and quit calls, as it runs.
	presetReady    string
	hasPresetReady bool
	quitURLs       []string
	// command is the tandem command line it gets, nil when it is not
	// wrapped; startHook its postStart command, nil for none.
	command, startHook []string
	// startupProbe is the one native mode adds (nativestart.go), nil for
	// none.
	startupProbe *yaml.Node
}

// plan is what injecting one pod template will do.
type plan struct {
	spec, meta *yaml.Node
	mains      []*container
	sidecars   []*container
	natives    []*container // named sidecars already native: wrapped in place
	// needs are the sidecars every main needs (tandem.sh/needs).
	needs []string
	// budgets are the sidecars' restart budgets, by name (budget.go).
	budgets  map[string]restartBudget
	grace    graceSplit
	warnings []string
	// problems are what stops the injection; every one is reported, so
	// that one run shows every fix.
	problems []error
	// binary is where the wrapped containers run tandem from (Install).
	binary string
}

// read reads every program the plan needs, and the stop signals, in the
// order of the containers; then every problem found is the plan's error.
// It changes nothing.
func (p *plan) read(ctx context.Context, opts Options) error {
	for _, c := range p.toWrap(opts.Mode) {
		if c.checkErr != nil {
			p.problems = append(p.problems, c.checkErr)
			continue
		}
		warning, err := c.read(ctx, opts)
		if err != nil {
			p.problems = append(p.problems, err)
		} else if warning != "" {
			p.warnings = append(p.warnings, warning)
		}
	}
	return errors.Join(p.problems...)
}

// readOptIn says whether the template's annotations leave it to be
// injected: not opted out, not injected already, and every tandem.sh/
// annotation one tandem knows.
func readOptIn(annotations *yaml.Node) error {
	if v := yamlnode.ScalarAt(annotations, InjectKey); slices.Contains(OptOutValues, v) {
		return errSkip{OptedOut, InjectKey + ": " + v}
	}
	if v := yamlnode.ScalarAt(annotations, InjectedKey); v != "" {
		return errSkip{AlreadyInjected, "already injected: " + InjectedKey + ": " + v}
	}
	return checkAnnotations(annotations)
}

// preparePlan checks the pod template, sorts its containers and decides
// which images to read, without reading any. It stops at what leaves
// nothing to read; other problems go into the plan's.
func preparePlan(template *yaml.Node, opts Options) (*plan, error) {
	meta, spec := yamlnode.Lookup(template, "metadata"), yamlnode.Lookup(template, "spec")
	annotations := yamlnode.Lookup(meta, "annotations")
	if err := readOptIn(annotations); err != nil {
		return nil, err
	}
	ctrs := yamlnode.Lookup(spec, "containers")
	if ctrs == nil || ctrs.Kind != yaml.SequenceNode || len(ctrs.Content) == 0 {
		return nil, errors.New("the pod template has no containers list")
	}
	// The plan reads, and apply writes, the containers as kubectl reads
	// them: with their aliases and merge keys expanded.
	views, origs := expandedAll(ctrs.Content)
	natives := nativeSidecars(spec, origs)
	all := append(slices.Clone(views), natives...)
	n, err := namedSidecars(all, views, annotations, opts)
	if err != nil {
		return nil, explainInitContainers(spec, err)
	}
	names := n.names
	if len(names) == 0 {
		return nil, errSkip{NoSidecars, strings.Join(append([]string{noSidecars(ctrs, opts.Sidecars)}, n.notes...), "; ")}
	}
	// A pod wrapped by hand also has the volume and names tandem adds:
	// say it is wrapped, not that a volume collides.
	if err := checkWrapped(spec); err != nil {
		return nil, err
	}
	if err := checkCollisions(spec, opts.Install); err != nil {
		return nil, err
	}
	p := &plan{spec: spec, meta: meta, needs: n.needs, warnings: n.notes}
	stated, err := statedStopSignals(annotations, append(containerNames(views), containerNames(natives)...))
	p.problems = append(p.problems, checkShapes(meta, spec, all), explainInitContainers(spec, err))
	var graceErr error
	p.grace, graceErr = splitGrace(spec, annotations, names)
	p.problems = append(p.problems, graceErr)
	p.sortContainers(views, natives, origs, names, stated, n.matches)
	var budgetErr error
	p.budgets, budgetErr = restartBudgets(annotations, names, p.needs)
	p.problems = append(p.problems, budgetErr)
	var delayErr error
	p.grace.delays, delayErr = stopDelays(annotations, names)
	p.problems = append(p.problems, delayErr)
	p.presetStopDelays()
	p.warnings = append(p.warnings, p.olderTagWarnings()...)
	if len(p.mains) == 0 {
		return nil, fmt.Errorf("every container is named a sidecar (%s): a pod needs a main container whose end stops them", strings.Join(names, ", "))
	}
	for _, c := range p.toWrap(opts.Mode) {
		c.checkErr = c.checkReads(opts)
		c.readSignal = c.readSignal && !p.runsAlone(c)
	}
	return p, nil
}

// sortContainers makes the plan's mains, sidecars and native sidecars of
// the containers' and native sidecars' views.
func (p *plan) sortContainers(views, natives []*yaml.Node, origs map[*yaml.Node]*yaml.Node, names []string, stated map[string]string, matches map[string]presets.Match) {
	for _, n := range views {
		name := yamlnode.ScalarAt(n, "name")
		c := &container{orig: origs[n], node: n, name: name, sidecar: slices.Contains(names, name), statedSignal: stated[name], preset: matchOf(matches, name)}
		if c.sidecar {
			p.sidecars = append(p.sidecars, c)
		} else {
			p.mains = append(p.mains, c)
		}
	}
	for _, n := range natives {
		if name := yamlnode.ScalarAt(n, "name"); slices.Contains(names, name) {
			p.natives = append(p.natives, &container{orig: origs[n], node: n, name: name, sidecar: true, native: true, statedSignal: stated[name], preset: matchOf(matches, name)})
		}
	}
}

// named is what the pod names: its sidecars (by the annotation, by
// --sidecar, or by a preset), the ones the mains need (tandem.sh/needs,
// else the presets' essential ones), the preset of each it matched, and
// notes on images that look like a preset's but are not references.
type named struct {
	names, needs []string
	matches      map[string]presets.Match
	notes        []string
}

// namedSidecars reads what the pod names (all: the containers, then the
// native sidecars).
func namedSidecars(all, containers []*yaml.Node, annotations *yaml.Node, opts Options) (named, error) {
	matches, err := presetMatches(all, annotations, opts.Presets)
	if err != nil {
		return named{}, err
	}
	n := named{notes: invalidPresetImages(all, matches, opts.Presets)}
	matches, alone := keepAMain(containers, matches)
	flagged := append(slices.Clone(opts.Sidecars), matchedNames(all, matches)...)
	// A native sidecar is a sidecar by its own declaration
	// (restartPolicy: Always), named or not.
	flagged = append(flagged, containerNames(all[len(containers):])...)
	if n.names, err = sidecarNames(all, yamlnode.ScalarAt(annotations, SidecarsKey), flagged); err != nil {
		return named{}, err
	}
	if len(n.names) == 0 && alone != "" {
		return named{}, errSkip{NoSidecars, "no main to wrap: every container is a known sidecar (" + alone + "), as in the sidecar's own workload"}
	}
	n.matches, n.needs = matches, essentialByPreset(n.names, matches)
	if yamlnode.Lookup(annotations, NeedsKey) != nil {
		n.needs, err = neededSidecars(yamlnode.ScalarAt(annotations, NeedsKey), n.names)
	}
	return n, err
}

// matchOf is name's preset, nil for none.
func matchOf(matches map[string]presets.Match, name string) *presets.Match {
	if m, ok := matches[name]; ok {
		return &m
	}
	return nil
}

// toWrap lists the containers whose command changes: all of them, in
// either mode (decide says why the mains are wrapped in native mode).
func (p *plan) toWrap(Mode) []*container {
	return append(append(append([]*container{}, p.mains...), p.sidecars...), p.natives...)
}

// nativeSidecars are the pod's init containers with restartPolicy:
// Always, expanded; origs gets the original of each.
func nativeSidecars(spec *yaml.Node, origs map[*yaml.Node]*yaml.Node) []*yaml.Node {
	var natives []*yaml.Node
	views, viewOrigs := expandedAll(contentOf(yamlnode.Lookup(spec, "initContainers")))
	for _, n := range views {
		origs[n] = viewOrigs[n]
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
			return nil, notInPod{SidecarsKey, name, have}
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
