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

// addLateQuitURLs gives the mains of an injected template the quit URLs
// of the known sidecars added after injection. It returns the sidecars
// and the mains it changed; none when there is nothing to add.
func addLateQuitURLs(template *yaml.Node, opts Options) (late []lateSidecar, mains []string) {
	annotations := yamlnode.Path(template, "metadata", "annotations")
	if on, err := presetMatches(nil, annotations, opts.Presets); err != nil || on == nil {
		return nil, nil // presets off for the run or the pod
	}
	var mainNodes []*yaml.Node
	for _, n := range contentOf(yamlnode.Path(template, "spec", "containers")) {
		command, _ := yamlnode.StringsOf(yamlnode.Lookup(n, "command"))
		if len(command) > 1 && path.Base(command[0]) == cmdline.Program {
			if command[1] == cmdline.CmdMain {
				mainNodes = append(mainNodes, n)
			}
			continue
		}
		if s, ok := lateSidecarOf(n, command, opts.Presets); ok {
			late = append(late, s)
		}
	}
	for _, n := range mainNodes {
		if addQuitURLs(n, late) {
			mains = append(mains, yamlnode.ScalarAt(n, "name"))
		}
	}
	if len(mains) == 0 {
		return nil, nil
	}
	return late, mains
}

// lateSidecarOf is container n as a late sidecar, when its image has a
// preset whose quit URL it serves as it runs.
func lateSidecarOf(n *yaml.Node, command []string, table *presets.Table) (lateSidecar, bool) {
	m, ok := table.Lookup(yamlnode.ScalarAt(n, "image"))
	if !ok {
		return lateSidecar{}, false
	}
	args, _ := yamlnode.StringsOf(yamlnode.Lookup(n, "args"))
	c := &container{node: n, preset: &m, argv: append(slices.Clone(command), args...)}
	urls := c.presetQuitURLs()
	if len(urls) == 0 {
		return lateSidecar{}, false
	}
	return lateSidecar{name: yamlnode.ScalarAt(n, "name"), url: urls[0], m: m}, true
}

// addQuitURLs puts --quit-url URL before the "--" of a main's tandem
// command for each late sidecar it lacks; it says whether it changed it.
func addQuitURLs(main *yaml.Node, late []lateSidecar) bool {
	command, _ := yamlnode.StringsOf(yamlnode.Lookup(main, "command"))
	end := slices.Index(command, "--")
	if end < 0 {
		return false
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
	if changed {
		yamlnode.Set(main, "command", yamlnode.StringSeq(command))
	}
	return changed
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

// lateReport is the report on an injected template whose mains were
// given late sidecars' quit URLs.
func lateReport(r Report, late []lateSidecar, mains []string) Report {
	r.Status, r.Mains, r.Presets = Injected, mains, map[string]string{}
	for _, s := range late {
		r.Sidecars = append(r.Sidecars, s.name)
		r.Presets[s.name] = presetNote(s.m) + "; added after injection: the mains call its quit URL " + s.url
	}
	return r
}
