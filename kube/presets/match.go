package presets

import (
	"fmt"
	"net"
	"net/url"
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

// OlderThanVerified is true when the image's tag is a release older than
// the one the preset was read at: its flags and endpoints may not be the
// ones the preset states. A tag that names a series (2.25) is compared as
// far as it goes: it is not older than the 2.25.3 in it.
func (m Match) OlderThanVerified() bool {
	return olderThan(m.Tag, m.Verified.Version)
}

// olderThan says whether tag is a release older than version, as far as
// tag goes (a series tag, 2.25, is not older than 2.25.3); false when
// either is no release.
func olderThan(tag, version string) bool {
	t, ok := release(tag)
	v, ok2 := release(version)
	if !ok || !ok2 {
		return false
	}
	given := len(strings.Split(strings.TrimPrefix(strings.SplitN(tag, "-", 2)[0], "v"), "."))
	for i := range given {
		if t[i] != v[i] {
			return t[i] < v[i]
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

// For is the endpoint as a container that runs argv with env (its
// environment's names and values) serves it: the URL of a quit call or the
// condition of a readiness, on the port it sets; ok is false when it does
// not serve it. err says that the port it sets is not a number.
func (e *Endpoint) For(argv []string, env map[string]string) (target string, ok bool, err error) {
	if e == nil || (e.WhenArg != "" || e.WhenEnv != "") && !(Switch{e.WhenArg, e.WhenEnv}).On(argv, env) {
		return "", false, nil
	}
	target = e.Target()
	var port, name string
	if v, ok := flagValue(argv, e.PortArg); ok {
		port, name = v, e.PortArg
	} else if v := env[e.PortEnv]; e.PortEnv != "" && v != "" {
		port, name = v, e.PortEnv
	}
	if name == "" {
		return target, true, nil
	}
	host, number := addressOf(port)
	if n, err := strconv.Atoi(number); err != nil || n < 1 || n > 65535 {
		return "", false, fmt.Errorf("%s %q: not a port number", name, port)
	}
	u, err := url.Parse(target)
	if err != nil {
		return "", false, err
	}
	if host == "" {
		host = u.Hostname()
	}
	u.Host = net.JoinHostPort(host, number)
	return u.String(), true, nil
}

// addressOf reads a port setting: a port, or an address HOST:PORT (alloy's
// --server.http.listen-addr). The host is "" when the endpoint's own
// loopback host reaches it: none given, or a wildcard (0.0.0.0, ::),
// which listens on loopback too.
func addressOf(value string) (host, port string) {
	h, p, err := net.SplitHostPort(value)
	if err != nil {
		return "", value
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
		h = ""
	}
	return h, p
}

// On says whether a container that runs argv with env has the switch on:
// the flag alone or as flag=VALUE other than false; else, without the
// flag, the variable set to "true".
func (s Switch) On(argv []string, env map[string]string) bool {
	if v, ok := flagValue(argv, s.Arg); ok {
		return v != "false"
	}
	return s.Env != "" && strings.EqualFold(env[s.Env], "true")
}

// flagValue is the value of the last flag in argv (its program's flags
// parse so: the last wins): "--flag V" or "--flag=V"; "" for a flag given
// alone, last in argv or before another flag.
func flagValue(argv []string, flag string) (value string, ok bool) {
	if flag == "" {
		return "", false
	}
	for i, a := range argv {
		if v, eq := strings.CutPrefix(a, flag+"="); eq {
			value, ok = v, true
		} else if a == flag {
			value, ok = "", true
			if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				value = argv[i+1]
			}
		}
	}
	return value, ok
}

// Target is the endpoint on its default port: the URL of a quit call or
// the condition of a readiness.
func (e *Endpoint) Target() string {
	if e.URL != "" {
		return e.URL
	}
	return e.When
}
