package inject

import (
	"path"
	"slices"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/presets"
	"go.yaml.in/yaml/v3"
)

// A known sidecar that another injector adds after tandem's (Istio's
// istio-proxy, when the webhook is reinvoked) finds the pod already
// injected: tandem cannot wrap it any more, so the mains that tandem runs
// are given its quit URL (tandem main --quit-url), and it still stops
// when they end.

// lateSidecar is an unwrapped container of an injected pod whose preset
// says how it is asked to quit.
type lateSidecar struct {
	name string
	url  string
	m    presets.Match
}

// latePlan is what an injected template's mains get for the known
// sidecars added after injection: each main's command line anew.
type latePlan struct {
	late  []lateSidecar
	mains []lateMain
}

// lateMain is a main whose tandem command line gains quit URLs.
type lateMain struct {
	node    *yaml.Node
	name    string
	command []string
}

// planLate plans giving the mains of an injected template the quit URLs
// of the known sidecars added after injection; nil when there is nothing
// to add. It changes nothing.
func planLate(template *yaml.Node, opts Options) *latePlan {
	annotations := yamlnode.Path(template, "metadata", "annotations")
	if on, err := presetMatches(nil, annotations, opts.Presets); err != nil || on == nil {
		return nil // presets off for the run or the pod
	}
	var mainNodes []*yaml.Node
	lp := &latePlan{}
	for _, n := range contentOf(yamlnode.Path(template, "spec", "containers")) {
		command, _ := yamlnode.StringsOf(yamlnode.Lookup(n, "command"))
		if own := WithoutExecutor(command); len(own) > 1 && path.Base(own[0]) == cmdline.Program {
			if own[1] == cmdline.CmdMain {
				mainNodes = append(mainNodes, n)
			}
			continue
		}
		if s, ok := lateSidecarOf(n, command, opts.Presets); ok {
			lp.late = append(lp.late, s)
		}
	}
	for _, n := range mainNodes {
		if command, changed := withQuitURLs(n, lp.late); changed {
			lp.mains = append(lp.mains, lateMain{node: n, name: yamlnode.ScalarAt(n, "name"), command: command})
		}
	}
	if len(lp.mains) == 0 {
		return nil
	}
	return lp
}

// apply writes the mains' new command lines.
func (lp *latePlan) apply() {
	for _, m := range lp.mains {
		yamlnode.Set(m.node, "command", yamlnode.StringSeq(m.command))
	}
}

// lateSidecarOf is container n as a late sidecar, when its image has a
// preset whose quit URL it serves as it runs.
func lateSidecarOf(n *yaml.Node, command []string, table *presets.Table) (lateSidecar, bool) {
	m, ok := presetOf(table, yamlnode.ScalarAt(n, "image"))
	if !ok {
		return lateSidecar{}, false
	}
	args, _ := yamlnode.StringsOf(yamlnode.Lookup(n, "args"))
	c := &container{node: n}
	url, ok, err := m.Quit.For(append(slices.Clone(command), args...), c.env())
	if !ok || err != nil {
		return lateSidecar{}, false
	}
	return lateSidecar{name: yamlnode.ScalarAt(n, "name"), url: url, m: m}, true
}

// withQuitURLs is a main's tandem command with --quit-url URL before its
// "--" for each late sidecar it lacks, and whether that changes it.
func withQuitURLs(main *yaml.Node, late []lateSidecar) ([]string, bool) {
	command, _ := yamlnode.StringsOf(yamlnode.Lookup(main, "command"))
	end := slices.Index(command, "--")
	if end < 0 {
		return nil, false
	}
	changed := false
	for _, s := range late {
		if hasFlagValue(command[:end], "--"+cmdline.FlagQuitURL, s.url) {
			continue
		}
		command = slices.Insert(command, end, "--"+cmdline.FlagQuitURL, s.url)
		end += 2
		changed = true
	}
	return command, changed
}

// hasFlagValue: argv has flag VALUE or flag=VALUE.
func hasFlagValue(argv []string, flag, value string) bool {
	for i, a := range argv {
		if a == flag+"="+value || a == flag && i+1 < len(argv) && argv[i+1] == value {
			return true
		}
	}
	return false
}

// report is the report on an injected template whose mains were given
// late sidecars' quit URLs.
func (lp *latePlan) report(r Report) Report {
	r.Status, r.Presets = Injected, map[string]string{}
	for _, m := range lp.mains {
		r.Mains = append(r.Mains, m.name)
	}
	for _, s := range lp.late {
		r.Sidecars = append(r.Sidecars, s.name)
		r.Presets[s.name] = presetNote(s.m) + "; added after injection: the mains call its quit URL " + s.url
	}
	return r
}
