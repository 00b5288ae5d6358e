package inject

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every container that cannot be injected is reported, each with its
// fix, so one run shows them all.
func TestEveryFailingContainerReported(t *testing.T) {
	src := withAnnotation("  containers:\n"+
		"    - name: main\n      image: registry/missing:1\n"+
		"    - name: second\n      image: app:1\n      command: /second --flag\n"+
		"    - name: side\n      image: unknown:1\n      command: [/s]\n"+
		"      volumeMounts: {a: b}\n", "tandem.sh/stop-signal.ghost", "QUIT")
	opts := testOptions()
	r, out := injectYAML(t, src, opts)
	if r.Status != Failed {
		t.Fatalf("%s; want not injected", r)
	}
	lines := strings.Split(r.String(), "\n")
	want := []string{
		"pod/p: not injected (5 problems):",
		`  - container "side" volumeMounts (line 18): expected a list`,
		`  - tandem.sh/stop-signal.ghost names container "ghost"`,
		`  - container "main" (image "registry/missing:1"): read the image config: MANIFEST_UNKNOWN`,
		`  - container "second" (image "app:1"): command and args: expected lists of strings`,
		`  - container "side" (image "unknown:1"): read the image config: MANIFEST_UNKNOWN`,
	}
	if len(lines) != len(want) {
		t.Fatalf("report:\n%s\nwant %d lines", r, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q\nwant it to start %q", i, lines[i], w)
		}
	}
	unchanged(t, src, out)
	// One problem keeps its one line.
	one := pod("  containers:\n    - name: main\n      image: registry/missing:1\n    - name: side\n      image: app:1\n      command: [/s]\n")
	if r, _ := injectYAML(t, one, testOptions()); strings.Contains(r.String(), "\n") || !strings.HasPrefix(r.String(), `pod/p: not injected: container "main"`) {
		t.Errorf("one problem: %q; want one line", r)
	}
}

// Prepared.Images lists what injection will look up, each once, in the order it
// will ask, and changes nothing.
func TestImages(t *testing.T) {
	src := pod("  containers:\n" +
		"    - name: main\n      image: postgres:16\n" + // no command: its program
		"    - name: second\n      image: postgres:16\n" + // the same image: once
		"    - name: third\n      image: busybox:1\n      command: [/m]\n" + // a main with a command: nothing
		"    - name: side\n      image: nginx:1\n      command: [/s]\n") // a sidecar: its stop signal
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	opts := testOptions()
	if got, want := Prepare(doc.Content[0], opts).Images(), []string{"postgres:16", "nginx:1"}; !slices.Equal(got, want) {
		t.Errorf("Images: %q; want %q", got, want)
	}
	if lookups := opts.Resolver.(*fakeResolver).lookups; len(lookups) > 0 {
		t.Errorf("Images looked up %q; want nothing read", lookups)
	}
	unchanged(t, src, encode(t, &doc))
	// A native sidecar is stopped with its image's STOPSIGNAL too.
	var native yaml.Node
	if err := yaml.Unmarshal([]byte(pod(sprintf(twoContainers, "nginx:1"))), &native); err != nil {
		t.Fatal(err)
	}
	if got, want := Prepare(native.Content[0], testOptionsWith(func(o *Options) { o.Mode = Native })).Images(), []string{"nginx:1"}; !slices.Equal(got, want) {
		t.Errorf("native mode: Images %q; want %q", got, want)
	}
	stated := withAnnotation(sprintf(twoContainers, "nginx:1"), "tandem.sh/stop-signal.side", "QUIT")
	for name, tt := range map[string]struct {
		src  string
		opts Options
	}{
		"commands and stated stop signals": {stated, testOptions()},
		"--resolve none":                   {src, testOptionsWith(func(o *Options) { o.Resolver = nil })},
		"native mode, stated stop signals": {stated, testOptionsWith(func(o *Options) { o.Mode = Native })},
		"no sidecars":                      {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + sprintf(twoContainers, "nginx:1"), testOptions()},
		"not a pod template":               {"apiVersion: v1\nkind: Service\nmetadata: {name: s}\n", testOptions()},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tt.src), &doc); err != nil {
			t.Fatal(err)
		}
		if got := Prepare(doc.Content[0], tt.opts).Images(); len(got) > 0 {
			t.Errorf("%s: Images %q; want none", name, got)
		}
	}
}
