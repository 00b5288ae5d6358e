package policy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// presetMatch is the CEL that names the preset of image (a string
// expression), "" for none: the first preset, in the table's order, whose
// repository ends the image's path (any registry or mirror; a tag, a
// digest). A repository with upper case is no image reference and names
// no preset, as for inject.
func presetMatch(table *presets.Table, image string) string {
	if table == nil {
		return "''"
	}
	var cases [][2]string
	for _, p := range table.Presets {
		var res []string
		for _, r := range p.Repositories {
			res = append(res, regexp.QuoteMeta(r))
		}
		// A registry (a dot, a port or localhost) may have upper case; the
		// path may not.
		re := `^(([^/@]*[.:][^/@]*|localhost|[a-z0-9._-]+)/)?([a-z0-9._-]+/)*(` + strings.Join(res, "|") + `)(:[^/@]*)?(@.*)?$`
		cases = append(cases, [2]string{image + ".matches(" + str(re) + ")", str(p.Name)})
	}
	return choose(cases, "''")
}

// unsupported says why the policy cannot inject a sidecar of preset p in
// mode native or not, "" when it can: CEL could read a command line's
// flags, but the presets that read them are left to the webhook, whose Go
// reads them as inject does.
func unsupported(p presets.Preset, native bool) string {
	switch {
	case p.Essential:
		return "the mains need it (tandem.sh/needs by its preset), which the policy does not write"
	case conditional(p.Quit):
		return "its quit call depends on its command line or environment, which the policy does not read"
	case p.Ready != nil && !native:
		return "its preset's readiness becomes a start hook in classic mode, which the policy does not write"
	case conditional(p.Ready):
		return "its readiness depends on its command line or environment, which the policy does not read"
	}
	return ""
}

func conditional(e *presets.Endpoint) bool {
	return e != nil && (e.WhenArg != "" || e.WhenEnv != "" || e.PortArg != "" || e.PortEnv != "")
}

// presetMap is a CEL map literal from preset name to what value says of
// it, for the presets it says something of.
func presetMap(table *presets.Table, value func(presets.Preset) (string, bool)) string {
	var entries []string
	if table != nil {
		for _, p := range table.Presets {
			if s, ok := value(p); ok {
				entries = append(entries, str(p.Name)+": "+s)
			}
		}
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// tenths is d in tenths of a second (inject.GraceResolution), as a CEL
// int literal.
func tenths(d time.Duration) string { return strconv.FormatInt(int64(d/inject.GraceResolution), 10) }

func graceOf(p presets.Preset) (string, bool) {
	d, ok := p.StopGrace()
	return tenths(d), ok
}

func delayOf(p presets.Preset) (string, bool) {
	d, ok := p.Delay()
	return tenths(d), ok
}

func quitOf(p presets.Preset) (string, bool) {
	if p.Quit == nil || conditional(p.Quit) {
		return "", false
	}
	return str(p.Quit.Target()), true
}

// signalOf is the preset's stop signal where it is not SIGTERM: a classic
// sidecar's --termination-signal.
func signalOf(p presets.Preset) (string, bool) {
	sig := strings.TrimPrefix(strings.ToUpper(p.StopSignal), "SIG")
	return str(sig), sig != "" && sig != "TERM" && sig != "15"
}

// presetProgram is the CEL of what container i runs when it has no
// command and its preset states its image's ENTRYPOINT and CMD for its
// tag (presets.Match.Image), [] when none does.
func presetProgram(table *presets.Table, i string) string {
	if table == nil {
		return "[]"
	}
	c := "object.spec.containers[" + i + "]"
	args := "(has(" + c + ".args) && size(" + c + ".args) > 0 ? " + c + ".args : "
	var cases [][2]string
	for _, p := range table.Presets {
		for _, im := range p.Images {
			for _, s := range im.Suffixes {
				cond := fmt.Sprintf("%s[%s] == %s && size(%s[%s]) > 0 && !(%s) && %s",
					v("preset"), i, str(p.Name), v("release"), i, olderThan(v("release")+"["+i+"]", im.Since), suffixIs(v("rest")+"["+i+"]", s))
				cases = append(cases, [2]string{cond, strList(im.Entrypoint) + " + " + args + strList(im.Cmd) + ")"})
			}
		}
	}
	return choose(cases, "[]")
}

// olderThan is the CEL of presets' olderThan: the release parts (a list
// of ints) older than version, compared as far as they go.
func olderThan(parts, version string) string {
	nums := strings.Split(version, ".")
	expr := ""
	for i := len(nums) - 1; i >= 0; i-- {
		at := fmt.Sprintf("%s[%d]", parts, i)
		older := at + " < " + nums[i]
		if expr != "" {
			older = fmt.Sprintf("%s || %s == %s && size(%s) > %d && (%s)", older, at, nums[i], parts, i+1, expr)
		}
		expr = older
	}
	return expr
}

// suffixIs is the CEL of a tag's rest after its version ("" or "-…")
// being built with suffix s.
func suffixIs(rest, s string) string {
	if s == "" {
		return rest + " == ''"
	}
	return rest + ".startsWith(" + str(s) + ")"
}
