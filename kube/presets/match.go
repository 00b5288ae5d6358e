package presets

import (
	"strconv"
	"strings"
)

// Match is the preset an image matched, and the image's tag.
type Match struct {
	*Preset
	Tag string
}

// Lookup finds the preset of an image reference (any registry or mirror,
// tag or digest): the one whose repository is the path's last elements.
func (t *Table) Lookup(image string) (Match, bool) {
	repo, tag := splitImage(image)
	for i := range t.Presets {
		p := &t.Presets[i]
		for _, r := range p.Repositories {
			if repo == r || strings.HasSuffix(repo, "/"+r) {
				return Match{Preset: p, Tag: tag}, true
			}
		}
	}
	return Match{}, false
}

// splitImage parts a reference into its repository path (lower case,
// without digest or tag) and its tag ("" for none).
func splitImage(image string) (repo, tag string) {
	repo, _, _ = strings.Cut(strings.TrimSpace(image), "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo, tag = repo[:i], repo[i+1:]
	}
	return strings.ToLower(repo), tag
}

// NewerThanVerified is true when the image's tag is a release newer than
// the one the preset was read at; a tag that is not a release (latest,
// edge-…, a digest alone) is never said to be newer.
func (m Match) NewerThanVerified() bool {
	tag, ok := release(m.Tag)
	verified, ok2 := release(m.Verified.Version)
	if !ok || !ok2 {
		return false
	}
	for i := range 3 {
		if tag[i] != verified[i] {
			return tag[i] > verified[i]
		}
	}
	return false
}

// release reads "v1.2.3", "1.2" or "1.2.3-alpine" as three numbers.
func release(s string) ([3]int, bool) {
	var v [3]int
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// Applies says whether an endpoint is served by a container that runs
// argv with env (its environment's names and values).
func (e *Endpoint) Applies(argv []string, env map[string]string) bool {
	if e == nil {
		return false
	}
	if e.WhenArg != "" && !hasFlag(argv, e.WhenArg) {
		return false
	}
	if e.WhenEnv != "" && !strings.EqualFold(env[e.WhenEnv], "true") {
		return false
	}
	return true
}

// hasFlag: argv has flag, alone or as flag=VALUE other than false.
func hasFlag(argv []string, flag string) bool {
	for _, a := range argv {
		if a == flag {
			return true
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok && v != "false" {
			return true
		}
	}
	return false
}

// Target is the endpoint as tandem takes it: the URL of a quit call or
// the condition of a readiness.
func (e *Endpoint) Target() string {
	if e.URL != "" {
		return e.URL
	}
	return e.When
}
