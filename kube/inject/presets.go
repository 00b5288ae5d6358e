package inject

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/presets"
	"go.yaml.in/yaml/v3"
)

// PresetsKey turns the known sidecars' presets off for one pod
// (tandem.sh/presets: disabled).
const PresetsKey = "tandem.sh/presets"

// presetMatches are the pod's containers (ctrs: the containers, then the
// native sidecars) whose image matches a preset, unless presets are off
// for the run or for the pod.
func presetMatches(ctrs []*yaml.Node, annotations *yaml.Node, table *presets.Table) (map[string]presets.Match, error) {
	switch v := yamlnode.ScalarAt(annotations, PresetsKey); v {
	case "", "enabled":
	case "disabled":
		return nil, nil
	default:
		return nil, fmt.Errorf("%s: %q: expected disabled or enabled", PresetsKey, v)
	}
	if table == nil {
		return nil, nil
	}
	matches := map[string]presets.Match{}
	for _, n := range ctrs {
		if m, ok := presetOf(table, yamlnode.ScalarAt(n, "image")); ok {
			matches[yamlnode.ScalarAt(n, "name")] = m
		}
	}
	return matches, nil
}

// presetOf is the preset of image when it is an image reference: one
// that is not (upper case in its repository) cannot be pulled, so it is
// not taken for the sidecar it names.
func presetOf(table *presets.Table, image string) (presets.Match, bool) {
	m, ok := table.Lookup(image)
	if !ok {
		return presets.Match{}, false
	}
	if _, err := name.ParseReference(image); err != nil {
		return presets.Match{}, false
	}
	return m, true
}

// invalidPresetImages say which containers (of ctrs) have an image that
// names a preset's repository but is not an image reference, when
// presets are on (matches not nil).
func invalidPresetImages(ctrs []*yaml.Node, matches map[string]presets.Match, table *presets.Table) []string {
	if matches == nil {
		return nil
	}
	var notes []string
	for _, n := range ctrs {
		image := yamlnode.ScalarAt(n, "image")
		m, ok := table.Lookup(image)
		if _, err := name.ParseReference(image); ok && err != nil {
			notes = append(notes, fmt.Sprintf("container %q: image %q is not an image reference (%v), so it is not taken for preset %s, and the kubelet cannot pull it",
				yamlnode.ScalarAt(n, "name"), image, err, m.Name))
		}
	}
	return notes
}

// keepAMain drops the matches when they would leave the pod no main: a
// pod that runs a known sidecar alone (a proxy's own Deployment) is not
// one to inject. dropped says which it dropped, for the report.
func keepAMain(containers []*yaml.Node, matches map[string]presets.Match) (kept map[string]presets.Match, dropped string) {
	var all []string
	for _, n := range containers {
		name := yamlnode.ScalarAt(n, "name")
		m, ok := matches[name]
		if !ok {
			return matches, ""
		}
		all = append(all, name+": preset "+m.Name)
	}
	return nil, strings.Join(all, ", ")
}

// matchedNames are the names of the matched containers, in ctrs' order.
func matchedNames(ctrs []*yaml.Node, matches map[string]presets.Match) []string {
	var names []string
	for _, n := range ctrs {
		if _, ok := matches[yamlnode.ScalarAt(n, "name")]; ok {
			names = append(names, yamlnode.ScalarAt(n, "name"))
		}
	}
	return names
}

// essentialByPreset are the sidecars whose preset says the mains need
// them: the default when the pod has no tandem.sh/needs of its own.
func essentialByPreset(sidecars []string, matches map[string]presets.Match) []string {
	var needs []string
	for _, name := range sidecars {
		if m, ok := matches[name]; ok && m.Essential {
			needs = append(needs, name)
		}
	}
	return needs
}

// olderTagWarnings say which sidecars run a release of their preset's
// image older than the one it was verified at.
func (p *plan) olderTagWarnings() []string {
	var warnings []string
	for _, c := range append(slices.Clone(p.sidecars), p.natives...) {
		if c.preset != nil && c.preset.OlderThanVerified() {
			warnings = append(warnings, fmt.Sprintf("sidecar %q: tag %s is older than the %s preset %s was verified at: check that it serves what `tandemctl presets` says",
				c.name, c.preset.Tag, c.preset.Verified.Version, c.preset.Name))
		}
	}
	return warnings
}

// presetNote is the report's word on a sidecar named by its preset.
func presetNote(m presets.Match) string {
	note := "preset " + m.Name
	if m.NewerThanVerified() {
		note += fmt.Sprintf("; tag %s is newer than the %s it was verified at", m.Tag, m.Verified.Version)
	}
	return note
}

// presetNote is the report's word on sidecar c, which a preset names:
// also whether its program came from the preset.
func (c *container) presetNote() string {
	note := presetNote(*c.preset)
	if c.presetImage != nil {
		what := "ENTRYPOINT"
		if len(c.presetImage.Cmd) > 0 {
			what = "ENTRYPOINT and CMD"
		}
		note += fmt.Sprintf("; its image's %s from the preset, not looked up", what)
	}
	return note
}

// programByPreset takes the ENTRYPOINT and CMD of c's image from its
// preset, when the preset states them for the image's tag: a sidecar with
// no command then needs no registry lookup, even with lookups off.
func (c *container) programByPreset() bool {
	if c.preset == nil {
		return false
	}
	im, ok := c.preset.Image()
	if ok {
		c.presetImage = &ImageConfig{Entrypoint: im.Entrypoint, Cmd: im.Cmd}
	}
	return ok
}

// presetEndpoints works out c's readiness and quit call from its preset,
// as it runs them: on or off, and on the ports its own flags and
// environment set. An endpoint whose port cannot be read is left out,
// with a warning.
func (p *plan) presetEndpoints(c *container) {
	if c.preset == nil {
		return
	}
	env := c.env()
	var err error
	if c.presetReady, c.hasPresetReady, err = c.preset.Ready.For(c.argv, env); err != nil {
		p.warnings = append(p.warnings, fmt.Sprintf("sidecar %q: preset %s's readiness left out: %v", c.name, c.preset.Name, err))
	}
	quit, ok, err := c.preset.Quit.For(c.argv, env)
	if err != nil {
		p.warnings = append(p.warnings, fmt.Sprintf("sidecar %q: preset %s's quit call left out: %v", c.name, c.preset.Name, err))
	}
	if ok {
		c.quitURLs = []string{quit}
	}
}

// presetCondition is c's readiness from its preset, when the pod
// declares no probe and the sidecar serves it as it runs.
func (c *container) presetCondition() (string, bool) {
	return c.presetReady, c.hasPresetReady
}

// env is c's environment as the manifest states it (values only).
func (c *container) env() map[string]string {
	env := map[string]string{}
	for _, e := range contentOf(yamlnode.Lookup(c.node, "env")) {
		env[yamlnode.ScalarAt(e, "name")] = yamlnode.ScalarAt(e, "value")
	}
	return env
}

// presetSignal is c's stop signal by its preset, as tandem names it.
func (c *container) presetSignal() (string, bool) {
	if c.preset == nil {
		return "", false
	}
	sig, err := signalName(c.preset.StopSignal)
	return sig, err == nil
}

// presetNotes say which sidecars a preset described (nil: none).
func (p *plan) presetNotes() map[string]string {
	var notes map[string]string
	for _, c := range append(append([]*container{}, p.sidecars...), p.natives...) {
		if c.preset == nil {
			continue
		}
		if notes == nil {
			notes = map[string]string{}
		}
		notes[c.name] = c.presetNote()
	}
	return notes
}
