//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pod is a Pod manifest made from an example, as lines of YAML. The edits
// are line-based and know only the shapes the examples use (two-space
// indents, block lists of containers, `command:` and `args:` as lists of
// strings, one line of `["a", "b"]` or `- a` items); anything else fails the
// test, naming the line.
type pod struct {
	name   string
	source string // the example's file name
	lines  []string
	// commands are the example's own `command:` lists, by container: what
	// play checks is played unchanged, unless the test is a control that
	// changes them on purpose (changed).
	commands map[string][]string
	changed  bool
}

// examplePod reads examples/FILE and returns it as a Pod named name-PID
// (two runs on one machine do not replace each other's pods): a Job's
// or a Deployment's spec.template becomes the Pod (podman 4.3 plays neither
// kind), and every image is a local one, never pulled. The tandem image
// stays the tandem image (the init-copy pattern copies it for real); every
// other image becomes testImage.
func examplePod(t *testing.T, file, name string) *pod {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	return manifestPod(t, file, data, name)
}

// manifestPod is examplePod for a manifest in hand (the output of
// tandemctl inject); file names it in messages and for markPlayed.
func manifestPod(t *testing.T, file string, data []byte, name string) *pod {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if slices.Contains(lines, "---") {
		t.Fatalf("%s: several YAML documents; the e2e tests play one per example", file)
	}
	var kind string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "kind:"); ok {
			kind = strings.TrimSpace(v)
		}
	}
	p := &pod{name: fmt.Sprintf("%s-%d", name, os.Getpid()), source: file}
	switch kind {
	case "Pod":
		p.lines = lines
	case "Job", "Deployment":
		p.lines = podFromTemplate(t, file, lines)
	default:
		t.Fatalf("%s: kind %q: expected Pod, Job or Deployment", file, kind)
	}
	p.setName()
	p.localImages(t)
	p.commands = map[string][]string{}
	for _, ctr := range p.containers() {
		p.commands[ctr] = p.list(t, ctr, "command")
	}
	if slices.Contains(p.lines, "  initContainers:") {
		// Podman 4.3 applies the pod's restart policy to init containers:
		// under Always (a Deployment's pod) it restarts a finished init
		// container in a loop and the pod never starts. The kubelet never
		// restarts a succeeded init container; OnFailure does the same here.
		if !slices.Contains(p.lines, "  restartPolicy: Never") && !slices.Contains(p.lines, "  restartPolicy: OnFailure") {
			p.setSpec("restartPolicy", "OnFailure")
		}
		// Podman removes a finished init container ("once"), and with it its
		// exit code and logs; "always" keeps it, and it still runs once per
		// pod start.
		p.annotate("io.podman.annotations.init.container.type", "always")
	}
	return p
}

// setSpec sets a scalar field of the pod's spec.
func (p *pod) setSpec(key, value string) {
	spec := slices.Index(p.lines, "spec:")
	for i := spec + 1; i < len(p.lines) && (p.lines[i] == "" || indentOf(p.lines[i]) > 0); i++ {
		if strings.HasPrefix(p.lines[i], "  "+key+":") {
			p.lines[i] = "  " + key + ": " + value
			return
		}
	}
	p.lines = slices.Insert(p.lines, spec+1, "  "+key+": "+value)
}

// annotate adds a pod annotation.
func (p *pod) annotate(key, value string) {
	line := "    " + key + ": " + strconv.Quote(value)
	meta := slices.Index(p.lines, "metadata:")
	if at := slices.Index(p.lines, "  annotations:"); at > meta {
		p.lines = slices.Insert(p.lines, at+1, line)
		return
	}
	p.lines = slices.Insert(p.lines, meta+1, "  annotations:", line)
}

var imageLine = regexp.MustCompile(`^(\s*)(- )?image:\s*(\S+)\s*$`)

// localImages points every image at a local one, with imagePullPolicy: Never:
// the tandem image (a release's, or tandemImage itself) at tandemImage, any
// other at testImage.
func (p *pod) localImages(t *testing.T) {
	t.Helper()
	var out []string
	for _, l := range p.lines {
		if strings.HasPrefix(strings.TrimSpace(l), "imagePullPolicy:") {
			continue
		}
		m := imageLine.FindStringSubmatch(l)
		if m == nil {
			out = append(out, l)
			continue
		}
		image := testImage
		if strings.HasPrefix(m[3], "ghcr.io/tandem-sh/tandem:") || m[3] == tandemImage {
			image = tandemImage
		}
		indent := m[1]
		if m[2] != "" {
			indent += "  "
		}
		out = append(out, m[1]+m[2]+"image: "+image, indent+"imagePullPolicy: Never")
	}
	p.lines = out
}

// podFromTemplate returns `spec.template` of a Job or a Deployment as a Pod.
func podFromTemplate(t *testing.T, file string, lines []string) []string {
	t.Helper()
	start := slices.Index(lines, "  template:")
	if start < 0 {
		t.Fatalf("%s: no spec.template", file)
	}
	var tmpl []string
	for _, l := range lines[start+1:] {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if indentOf(l) <= 2 {
			break
		}
		if indentOf(l) < 4 {
			t.Fatalf("%s: expected two-space indents under spec.template:\n%s", file, l)
		}
		tmpl = append(tmpl, l[4:])
	}
	out := []string{"apiVersion: v1", "kind: Pod"}
	if !slices.Contains(tmpl, "metadata:") {
		out = append(out, "metadata:")
	}
	return append(out, tmpl...)
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// setName gives the pod its name: containers are then named NAME-CONTAINER.
func (p *pod) setName() {
	meta := slices.Index(p.lines, "metadata:")
	end := meta + 1
	for end < len(p.lines) && (p.lines[end] == "" || indentOf(p.lines[end]) > 0) {
		if strings.HasPrefix(p.lines[end], "  name:") {
			p.lines = slices.Delete(p.lines, end, end+1)
			continue
		}
		end++
	}
	p.lines = slices.Insert(p.lines, meta+1, "  name: "+p.name)
}

var (
	keyLine  = regexp.MustCompile(`^(\s*)(- )?([A-Za-z]+):`)
	nameLine = regexp.MustCompile(`^(\s*)- name:\s*(\S+)\s*$`)
)

// block is one container or init container: lines [start, end), and the
// indent of its fields.
type block struct {
	name        string
	start, end  int
	fieldIndent int
}

// blocks lists the items of spec.containers and spec.initContainers.
func (p *pod) blocks() []block {
	var (
		blocks        []block
		sectionIndent = -1 // of the containers: or initContainers: key we are in
	)
	closeLast := func(i int) {
		if n := len(blocks); n > 0 && blocks[n-1].end < 0 {
			blocks[n-1].end = i
		}
	}
	for i, l := range p.lines {
		if trimmed := strings.TrimSpace(l); trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if sectionIndent >= 0 && indentOf(l) <= sectionIndent {
			closeLast(i)
			sectionIndent = -1
		}
		if m := keyLine.FindStringSubmatch(l); m != nil && m[2] == "" &&
			(m[3] == "containers" || m[3] == "initContainers") {
			sectionIndent = indentOf(l)
			continue
		}
		if m := nameLine.FindStringSubmatch(l); m != nil && sectionIndent >= 0 && len(m[1]) == sectionIndent+2 {
			closeLast(i)
			blocks = append(blocks, block{name: m[2], start: i, end: -1, fieldIndent: len(m[1]) + 2})
		}
	}
	closeLast(len(p.lines))
	return blocks
}

// containerBlock returns the container or init container named ctr.
func (p *pod) containerBlock(t *testing.T, ctr string) (start, end, fieldIndent int) {
	t.Helper()
	for _, b := range p.blocks() {
		if b.name == ctr {
			return b.start, b.end, b.fieldIndent
		}
	}
	t.Fatalf("pod %s: no container named %q", p.name, ctr)
	return 0, 0, 0
}

// field returns the lines [i, end) of ctr's field key (the key's line and,
// for a block list, its items), or -1, -1.
func (p *pod) field(t *testing.T, ctr, key string) (i, end int) {
	t.Helper()
	start, blockEnd, indent := p.containerBlock(t, ctr)
	for i := start + 1; i < blockEnd; i++ {
		if indentOf(p.lines[i]) != indent || !strings.HasPrefix(strings.TrimSpace(p.lines[i]), key+":") {
			continue
		}
		end := i + 1
		for end < blockEnd && (indentOf(p.lines[end]) > indent ||
			(indentOf(p.lines[end]) == indent && strings.HasPrefix(strings.TrimSpace(p.lines[end]), "- "))) {
			end++
		}
		return i, end
	}
	return -1, -1
}

// list returns ctr's command or args: a one-line flow list of quoted
// strings (`["a", "b"]`) or a block list of scalars (`- a`).
func (p *pod) list(t *testing.T, ctr, key string) []string {
	t.Helper()
	i, end := p.field(t, ctr, key)
	if i < 0 {
		return nil
	}
	fail := func(err error) {
		t.Fatalf("pod %s, container %s: %s: expected a list of strings, as `[\"a\", \"b\"]` on one line or `- a` items: %v\n%s",
			p.name, ctr, key, err, strings.Join(p.lines[i:end], "\n"))
	}
	raw := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.lines[i]), key+":"))
	var list []string
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &list); err != nil {
			fail(err)
		}
		return list
	}
	for _, l := range p.lines[i+1 : end] {
		item, ok := strings.CutPrefix(strings.TrimSpace(l), "- ")
		if !ok {
			fail(fmt.Errorf("not a list item: %q", l))
		}
		value, err := yamlScalar(item)
		if err != nil {
			fail(err)
		}
		list = append(list, value)
	}
	return list
}

// yamlScalar reads the scalars that command lines use: double-quoted,
// single-quoted, or plain (no trailing comment, no flow or block syntax).
func yamlScalar(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, `"`):
		var v string
		err := json.Unmarshal([]byte(s), &v)
		return v, err
	case strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) >= 2:
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), nil
	case s == "" || s == "-" || strings.Contains(s, " #") || strings.Contains(s, ": ") ||
		strings.ContainsAny(s[:1], "[]{}&*!|>%@`'#,?") || nonString.MatchString(s):
		// YAML would read it as something else than this string (a number,
		// a boolean, null, an alias, a collection...), or not at all.
		return "", fmt.Errorf("%q: quote this item", s)
	}
	return s, nil
}

// nonString matches the plain scalars that YAML 1.1 (what the Kubernetes
// API reads) types as numbers, booleans or null rather than strings.
var nonString = regexp.MustCompile(`^(?i:` +
	`[-+]?(\d[\d_]*(\.\d*)?|\.\d+)(e[-+]?\d+)?|[-+]?0x[\da-f_]+|[-+]?0o?[0-7_]+|[-+]?\d[\d_]*(:[0-5]?\d)+(\.\d*)?|` +
	`[-+]?\.inf|\.nan|y|n|yes|no|true|false|on|off|null|~)$`)

// setList sets ctr's command or args (nil removes the field). The list is
// written as one line of JSON, a YAML flow list.
func (p *pod) setList(t *testing.T, ctr, key string, list []string) {
	t.Helper()
	i, end := p.field(t, ctr, key)
	if i >= 0 {
		p.lines = slices.Delete(p.lines, i, end)
	}
	if list == nil {
		return
	}
	start, _, indent := p.containerBlock(t, ctr)
	if i < 0 {
		i = start + 1
	}
	p.lines = slices.Insert(p.lines, i, strings.Repeat(" ", indent)+key+": "+jsonList(list))
}

// args replaces what the container runs under tandem: the app.
func (p *pod) args(t *testing.T, ctr string, args ...string) {
	t.Helper()
	if i, _ := p.field(t, ctr, "args"); i < 0 {
		t.Fatalf("pod %s, container %s has no args to replace", p.name, ctr)
	}
	p.setList(t, ctr, "args", args)
}

// withoutTandem makes ctr run its args directly: the classic pod.
func (p *pod) withoutTandem(t *testing.T, ctr string) {
	t.Helper()
	p.changed = true
	p.setList(t, ctr, "command", p.list(t, ctr, "args"))
	p.setList(t, ctr, "args", nil)
}

// dropFlag removes a flag and its value (--flag=VALUE or --flag VALUE) from
// ctr's tandem command line.
func (p *pod) dropFlag(t *testing.T, ctr, flag string) {
	t.Helper()
	p.changed = true
	cmd := p.list(t, ctr, "command")
	for i, arg := range cmd {
		if strings.HasPrefix(arg, flag+"=") {
			p.setList(t, ctr, "command", slices.Delete(cmd, i, i+1))
			return
		}
		if arg == flag && i+1 < len(cmd) {
			p.setList(t, ctr, "command", slices.Delete(cmd, i, i+2))
			return
		}
	}
	t.Fatalf("pod %s, container %s: no %s VALUE in %q", p.name, ctr, flag, cmd)
}

// addContainer adds a container that the example does not name, as an
// admission webhook would (istio-proxy).
func (p *pod) addContainer(t *testing.T, name string, command ...string) {
	t.Helper()
	at := slices.Index(p.lines, "  containers:")
	if at < 0 || at+1 >= len(p.lines) {
		t.Fatalf("pod %s: no spec.containers", p.name)
	}
	dash := strings.Repeat(" ", indentOf(p.lines[at+1]))
	p.lines = slices.Insert(p.lines, at+1,
		dash+"- name: "+name,
		dash+"  image: "+testImage,
		dash+"  imagePullPolicy: Never",
		dash+"  command: "+jsonList(command))
}

// checkCommands fails the test when a container's `command:` differs from
// the example's: the tandem command lines are what the tests test.
func (p *pod) checkCommands(t *testing.T) {
	t.Helper()
	if p.changed {
		return
	}
	for ctr, want := range p.commands {
		if got := p.list(t, ctr, "command"); !slices.Equal(got, want) {
			t.Fatalf("pod %s, container %s: command %q, but examples/%s says %q", p.name, ctr, got, p.source, want)
		}
	}
}

// containers are the names of every container and init container.
func (p *pod) containers() []string {
	var names []string
	for _, b := range p.blocks() {
		names = append(names, b.name)
	}
	return names
}

func (p *pod) yaml() string { return strings.Join(p.lines, "\n") + "\n" }

func jsonList(list []string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(list); err != nil {
		panic(fmt.Sprintf("encode %q: %v", list, err))
	}
	return strings.TrimSpace(buf.String())
}
