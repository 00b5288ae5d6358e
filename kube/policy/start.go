package policy

import (
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// holdNextStart is the CEL of the patches by which native-mode sidecar i
// (at: its path, a CEL string) holds the next containers until it is
// ready, as inject writes them: its preset's readiness as the postStart
// hook `tandem wait`, unless it has a startupProbe, or a postStart hook
// of its own. (A readinessProbe, which inject makes a start hook too, is
// refused by problems.)
func (g *generator) holdNextStart(at string) string {
	ctr := "object.spec.containers[i]"
	ready := presetMap(g.opts.Presets, readyOf)
	preset := v("preset") + "[i]"
	hookCmd := cmdline.Wait{Binary: g.opts.Install.BinaryPath(), For: []string{"COND"}, Timeout: inject.PresetStartTimeout}.Argv()
	quoted := make([]string, len(hookCmd))
	for k, a := range hookCmd {
		quoted[k] = str(a)
		if a == "COND" {
			quoted[k] = "string(" + ready + "[" + preset + "])"
		}
	}
	t := "Object.spec.containers.lifecycle"
	hook := t + ".postStart{exec: " + t + ".postStart.exec{command: [" + strings.Join(quoted, ", ") + "]}}"
	noPostStart := "!(has(" + ctr + ".lifecycle) && has(" + ctr + ".lifecycle.postStart))"
	none := "[JSONPatch{}].filter(p, false)"
	// In parentheses: the caller adds it to a list, and + binds tighter
	// than ?:.
	return "(" + choose([][2]string{
		{"has(" + ctr + ".startupProbe)", none},
		// A ternary's middle is no ternary in CEL's grammar: in parentheses.
		{preset + " in " + ready + " && " + noPostStart, "(has(" + ctr + ".lifecycle) ? [" +
			op("add", at+" + '/lifecycle/postStart'", hook) + "] : [" +
			op("add", at+" + '/lifecycle'", t+"{postStart: "+hook+"}") + "])"},
	}, none) + ")"
}

// readyOf is the preset's readiness as tandem's condition, where it does
// not depend on the sidecar's command line or environment (unsupported
// refuses those).
func readyOf(p presets.Preset) (string, bool) {
	if p.Ready == nil || conditional(p.Ready) {
		return "", false
	}
	return str(p.Ready.Target()), true
}
