package inject

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// pod is a Pod whose container `side` is named a sidecar; spec is the
// pod's spec, indented by two spaces.
func pod(spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    tandem.sh/sidecars: side\nspec:\n" + spec
}

// listOf reads a string list at keys below container name of the injected
// output, from initContainers or containers.
func listOf(t *testing.T, out, name string, keys ...string) []string {
	t.Helper()
	items, _ := yamlnode.StringsOf(yamlnode.Path(containerOf(t, out, name), keys...))
	return items
}

// containerOf is container name of the injected output, from
// initContainers or containers.
func containerOf(t *testing.T, out, name string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	spec := yamlnode.Lookup(doc.Content[0], "spec")
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range contentOf(yamlnode.Lookup(spec, list)) {
			if yamlnode.ScalarAt(c, "name") == name {
				return c
			}
		}
	}
	t.Fatalf("no container %q in:\n%s", name, out)
	return nil
}

const twoContainers = `  containers:
    - name: main
      image: app:1
      command: [/app]
    - name: side
      image: %s
      command: [/side]
`

var sidecarCommandCases = []struct {
	name string
	spec string
	opts func(*Options)
	want []string // the sidecar's flags between --name side and the promises
	// mainGrace is the main's --termination-grace: the grace period less
	// the 5 s kept for the sidecar, whose --grace it is ("" for none).
	mainGrace string
}{
	{"defaults: the main's done file, 30s of outliving; a pod's restartPolicy is Always: stopped only on its deletion",
		sprintf(twoContainers, "app:1"), nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "30s"}, "25s"},
	{"OnFailure keeps the sidecar for the main's retry",
		"  restartPolicy: OnFailure\n" + sprintf(twoContainers, "app:1"), nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "success", "--outlive-main", "30s"}, "25s"},
	{"the grace period is the time to outlive the main",
		"  terminationGracePeriodSeconds: 90\n" + sprintf(twoContainers, "app:1"), nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "90s"}, "85s"},
	{"no grace period, nothing to outlive",
		"  terminationGracePeriodSeconds: 0\n" + sprintf(twoContainers, "app:1"), nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion"}, ""},
	{"the image's STOPSIGNAL is the termination signal",
		sprintf(twoContainers, "nginx:1"), nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "30s", "--termination-signal", "QUIT"}, "25s"},
	{"STOPSIGNAL 15 is SIGTERM",
		sprintf(twoContainers, "shipper:1"), nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "30s"}, "25s"},
	{"lifecycle.stopSignal wins over the image",
		sprintf(twoContainers, "nginx:1") + "      lifecycle:\n        stopSignal: SIGINT\n", nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "30s", "--termination-signal", "INT"}, "25s"},
	{"lifecycle.stopSignal needs no lookup",
		sprintf(twoContainers, "unknown:1") + "      lifecycle:\n        stopSignal: SIGUSR1\n", nil,
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "30s", "--termination-signal", "USR1"}, "25s"},
	{"without lookups, SIGTERM is assumed",
		sprintf(twoContainers, "nginx:1"), func(o *Options) { o.Resolver = nil },
		[]string{"--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "30s"}, "25s"},
	{"one done file per main",
		sprintf(twoContainers, "app:1") + "    - name: second\n      image: app:1\n      command: [/app]\n", nil,
		[]string{"--done-file", "/run/tandem/main.done", "--done-file", "/run/tandem/second.done", "--stop-when", "deletion", "--outlive-main", "30s"}, "25s"},
}

// classicPromises end a lone classic sidecar's flags: restarted whatever
// its code, and stopped if no main ever starts.
var classicPromises = []string{"--restart", "always", "--main-start-timeout", "600s"}

func TestSidecarCommandLine(t *testing.T) {
	for _, tt := range sidecarCommandCases {
		t.Run(tt.name, func(t *testing.T) {
			r, out := injectYAML(t, pod(tt.spec), testOptionsWith(tt.opts))
			if r.Status != Injected {
				t.Fatalf("%s", r)
			}
			promises := classicPromises
			if tt.mainGrace != "" {
				promises = append(slices.Clone(promises), "--grace", "5s")
			}
			want := append(append(append([]string{binary, "sidecar", "--name", "side"}, tt.want...), promises...), "--")
			if got := listOf(t, out, "side", "command"); !slices.Equal(got, want) {
				t.Errorf("sidecar command %q; want %q", got, want)
			}
			if got := listOf(t, out, "side", "args"); !slices.Equal(got, []string{"/side"}) {
				t.Errorf("sidecar args %q; want [/side]", got)
			}
			wantMain := []string{binary, "main", "--name", "main", "--done-file", "/run/tandem/main.done", "--"}
			if tt.mainGrace != "" {
				wantMain = slices.Insert(wantMain, len(wantMain)-1, "--termination-grace", tt.mainGrace)
			}
			if got := listOf(t, out, "main", "command"); !slices.Equal(got, wantMain) {
				t.Errorf("main command %q; want %q", got, wantMain)
			}
		})
	}
}

func sprintf(format, image string) string { return strings.Replace(format, "%s", image, 1) }

// --sidecar names a sidecar in every pod that has it; a pod without it is
// not an error.
func TestSidecarFlag(t *testing.T) {
	opts := testOptions()
	opts.Sidecars = []string{"side", "not-in-this-pod"}
	src := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n" + sprintf(twoContainers, "app:1")
	r, _ := injectYAML(t, src, opts)
	if r.Status != Injected || !slices.Equal(r.Sidecars, []string{"side"}) || !slices.Equal(r.Mains, []string{"main"}) {
		t.Errorf("%s; want side a sidecar, main a main", r)
	}
}

// Sidecars stop in reverse order of declaration, as native sidecars do:
// each but the last waits for the stopped file of the one declared after
// it, which writes it, so the last declared stops first.
func TestSidecarsStopInReverseOrder(t *testing.T) {
	src := strings.Replace(pod("  restartPolicy: Never\n  containers:\n"+
		"    - {name: main, image: app:1, command: [/m]}\n"+
		"    - {name: a, image: app:1, command: [/a]}\n"+
		"    - {name: b, image: app:1, command: [/b]}\n"+
		"    - {name: c, image: app:1, command: [/c]}\n"), "tandem.sh/sidecars: side", "tandem.sh/sidecars: a,b,c", 1)
	_, out := injectYAML(t, src, testOptions())
	for _, tt := range []struct {
		name        string
		doneFiles   []string
		stoppedFile string
	}{
		{"a", []string{"/run/tandem/main.done", "/run/tandem/b.stopped"}, ""},
		{"b", []string{"/run/tandem/main.done", "/run/tandem/c.stopped"}, "/run/tandem/b.stopped"},
		{"c", []string{"/run/tandem/main.done"}, "/run/tandem/c.stopped"},
	} {
		cmd := listOf(t, out, tt.name, "command")
		var done []string
		stopped := ""
		for i := 0; i+1 < len(cmd); i++ {
			switch cmd[i] {
			case "--done-file":
				done = append(done, cmd[i+1])
			case "--stopped-file":
				stopped = cmd[i+1]
			}
		}
		if !slices.Equal(done, tt.doneFiles) || stopped != tt.stoppedFile {
			t.Errorf("sidecar %s: done files %q, stopped file %q; want %q and %q", tt.name, done, stopped, tt.doneFiles, tt.stoppedFile)
		}
	}
}
