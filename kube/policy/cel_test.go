package policy

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// eval runs a CEL expression of the generator's with cel-go alone: the
// parts here need none of the API server's libraries.
func eval(t *testing.T, expr string, vars map[string]any) any {
	t.Helper()
	opts := []cel.EnvOption{ext.Strings()}
	for name := range vars {
		opts = append(opts, cel.Variable(name, cel.DynType))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		t.Fatalf("%s: %v", expr, iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := prg.Eval(vars)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return out.Value()
}

// The CEL writes a duration as tandem's command line builder does.
func TestDurationAsCmdline(t *testing.T) {
	for _, tenths := range []int64{1, 9, 10, 16, 100, 155, 599, 600, 655, 1310, 35999, 36000, 36005, 360010} {
		d := time.Duration(tenths) * 100 * time.Millisecond
		want := cmdline.Sidecar{Grace: d}.Argv()
		got := eval(t, duration("x"), map[string]any{"x": tenths})
		if fmt.Sprint(got) != want[len(want)-2] {
			t.Errorf("%d tenths: CEL %q; cmdline %q", tenths, got, want[len(want)-2])
		}
	}
}

// A tag's release is older than a preset's image as presets.Match.Image
// has it, compared as far as the tag goes.
func TestOlderThanAsPresets(t *testing.T) {
	for _, tt := range []struct {
		parts []int64
		older bool
	}{
		{[]int64{5, 1, 1}, false}, {[]int64{5, 1, 0}, true}, {[]int64{5, 1}, false}, {[]int64{5}, false},
		{[]int64{4, 9, 9}, true}, {[]int64{5, 0}, true}, {[]int64{6}, false}, {[]int64{5, 2, 0}, false},
	} {
		if got := eval(t, olderThan("p", "5.1.1"), map[string]any{"p": tt.parts}); got != tt.older {
			t.Errorf("%v older than 5.1.1: CEL %v; want %v", tt.parts, got, tt.older)
		}
	}
}

// An image names the preset that presets.Table.Lookup finds, or none.
func TestPresetMatchAsLookup(t *testing.T) {
	table := presets.Builtin()
	for _, image := range []string{
		"fluent/fluent-bit:5.1.1", "docker.io/fluent/fluent-bit", "localhost:5000/mirror/fluent/fluent-bit:5.1.1@sha256:00",
		"ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.159.0",
		"otel/opentelemetry-collector-contrib:0.159.0", "otel/opentelemetry-collector:0.159.0", "istio/proxyv2:1.27.0",
		"example.com/notfluent/fluent-bit-extra:1", "busybox", "fluent/fluent-bit-debug:5.1.1",
		"Registry.Example.com/fluent/fluent-bit:5.1.1", "localhost/tandem-k8s/fluent/fluent-bit:5.1.1",
	} {
		want := ""
		if m, ok := table.Lookup(image); ok {
			want = m.Name
		}
		if got := eval(t, presetMatch(table, "image"), map[string]any{"image": image}); got != want {
			t.Errorf("%s: CEL %q; Lookup %q", image, got, want)
		}
	}
	// Upper case in the path is no image reference: inject takes it for
	// no preset (the kubelet could not pull it).
	for _, image := range []string{"Fluent/Fluent-Bit:5.1.1", "example.com/Mirror/fluent/fluent-bit:5.1.1", "Mirror/fluent/fluent-bit:5.1.1"} {
		if got := eval(t, presetMatch(table, "image"), map[string]any{"image": image}); got != "" {
			t.Errorf("%s: CEL %q; want no preset", image, got)
		}
	}
}

// A stated stop signal is written as inject writes it, and refused where
// inject refuses it.
func TestSignalLookupAsInject(t *testing.T) {
	for _, s := range []string{"quit", " SIGQUIT ", "3", "03", "+3", "15", "sigterm", "SIG15", "SIGRTMIN+3", "rtmin", "rtmax-2",
		"RTMIN+30", "RTMIN+31", "KILL", "STOP", "99", "32", "0", "", "SIG", "FOO", "USR2", "sigwinch"} {
		want, err := inject.StopSignalName(s)
		if err != nil || strings.TrimSpace(s) == "" {
			want = badSignal
		}
		if got := eval(t, signalLookup("s"), map[string]any{"s": s}); got != want {
			t.Errorf("%q: CEL %q; inject %q (%v)", s, got, want, err)
		}
	}
}

// The period is read as the kubelet uses it: 30 s unset, 1 s negative, as
// inject's split reads it.
func TestGracePeriodAsTheKubelet(t *testing.T) {
	var expr string
	for _, v := range newGenerator(Options{Presets: presets.Builtin()}).grace() {
		if v.name == "period" {
			expr = v.expr
		}
	}
	for _, tt := range []struct {
		spec map[string]any
		want int64
	}{
		{map[string]any{}, 30},
		{map[string]any{"terminationGracePeriodSeconds": int64(0)}, 0},
		{map[string]any{"terminationGracePeriodSeconds": int64(45)}, 45},
		{map[string]any{"terminationGracePeriodSeconds": int64(-1)}, 1},
	} {
		if got := eval(t, expr, map[string]any{"object": map[string]any{"spec": tt.spec}}); got != tt.want {
			t.Errorf("spec %v: period %v; want %d", tt.spec, got, tt.want)
		}
	}
}

// An annotation naming an init container says so, as inject does; one
// naming nothing the pod has says that.
func TestNotInPodNamesInitContainers(t *testing.T) {
	object := map[string]any{"spec": map[string]any{"initContainers": []any{
		map[string]any{"name": "migrate"}, map[string]any{"name": "proxy", "restartPolicy": "Always"}}}}
	for name, want := range map[string]string{
		"migrate": "tandem.sh/sidecars names migrate, an init container that runs to completion before the containers start",
		"proxy":   "tandem.sh/sidecars names container proxy, which this pod does not have",
		"nothing": "tandem.sh/sidecars names container nothing, which this pod does not have",
	} {
		got := eval(t, notInPod(str(inject.SidecarsKey), str(name)), map[string]any{"object": object})
		if s, _ := got.(string); !strings.HasPrefix(s, want) {
			t.Errorf("%s: %q; want %q…", name, got, want)
		}
	}
	bare := map[string]any{"spec": map[string]any{}}
	if got := eval(t, notInPod("'k'", "'x'"), map[string]any{"object": bare}); got != "k names container x, which this pod does not have" {
		t.Errorf("a pod without init containers: %q", got)
	}
}

// policyPrograms are the policy's variables, compiled in order in the
// API server's CEL environment (its libraries: lists.range, max, min,
// sum), each reading the ones before it as variables.NAME.
type policyPrograms struct {
	names    []string
	programs []cel.Program
}

func compilePolicy(t *testing.T, g *generator) policyPrograms {
	t.Helper()
	base, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Env(environment.StoredExpressions)
	if err != nil {
		t.Fatal(err)
	}
	env, err := base.Extend(cel.Variable("object", cel.DynType), cel.Variable("variables", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	var p policyPrograms
	for _, list := range [][]variable{g.selection(), {g.problems()}, g.grace(), g.argv()} {
		for _, x := range list {
			ast, iss := env.Compile(x.expr)
			if iss.Err() != nil {
				t.Fatalf("variable %s: %v", x.name, iss.Err())
			}
			prg, err := env.Program(ast)
			if err != nil {
				t.Fatal(err)
			}
			p.names, p.programs = append(p.names, x.name), append(p.programs, prg)
		}
	}
	return p
}

// eval evaluates the variables on pod (a manifest) and returns them.
func (p policyPrograms) eval(t *testing.T, pod string) map[string]any {
	t.Helper()
	// Read as the API server reads it: whole numbers are ints.
	var object map[string]any
	if err := yamlv3.Unmarshal([]byte(pod), &object); err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{}
	for i, prg := range p.programs {
		// As in the API server, a variable that fails fails only what reads it.
		out, _, err := prg.Eval(map[string]any{"object": object, "variables": vars})
		if err != nil {
			out = types.WrapErr(err)
		}
		vars[p.names[i]] = out
	}
	return vars
}

// The policy shares the grace period as inject does (inject.FitShares):
// the sidecars stop one after another, so the main's --termination-grace
// leaves all their shares, cut to half the period when they add up to
// more. Evaluated in-process on pods the policy injects (these, and the
// corpus the cluster tests play), in either mode, each container's
// command line is inject's, and the main's grace and the sidecars'
// shares one after another fit the period.
func TestGraceSplitAsInject(t *testing.T) {
	pods := graceSplitPods()
	corpus := readCorpusPods(t)
	for _, name := range slices.Sorted(maps.Keys(corpus)) {
		pods = append(pods, corpus[name])
	}
	for _, mode := range []inject.Mode{inject.Classic, inject.Native} {
		opts := Options{Name: "tandem", Mode: mode, Install: inject.InitCopy, Image: "ghcr.io/tandem-sh/tandem:v1.0.0",
			Version: "v1.0.0", Presets: presets.Builtin(), OnError: inject.Reject}
		policy := compilePolicy(t, newGenerator(opts))
		played := 0
		for _, src := range pods {
			if first, _, _ := strings.Cut(src, "\n"); !strings.Contains(first, string(mode)+"=injects") {
				continue
			}
			played++
			vars := policy.eval(t, src)
			if problems := fmt.Sprint(vars["problems"]); problems != "[]" {
				t.Fatalf("%s%s: the policy does not inject it: %s", src, mode, problems)
			}
			if main, stops := policyTimeline(t, vars); main+stops > vars["period"].(types.Int)*10 {
				t.Errorf("%s%s: the main's grace (%d tenths) and the sidecars' shares one after another (%d) overrun the period", src, mode, main, stops)
			}
			if got, want := policyCommands(t, vars), injectedCommands(t, src, opts); !maps.Equal(got, want) {
				t.Errorf("%s%s: the policy writes\n%s\ninject writes\n%s", src, mode, lines(got), lines(want))
			}
		}
		t.Logf("%s: %d pods, the policy's command lines inject's", mode, played)
	}
}

// lines are the commands by container, one a line.
func lines(commands map[string]string) string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		out = append(out, name+": "+commands[name])
	}
	return strings.Join(out, "\n")
}

// policyTimeline is the main's grace and the sidecars' shares added up,
// in tenths of a second, as the policy's variables have them.
func policyTimeline(t *testing.T, vars map[string]any) (main, stops types.Int) {
	t.Helper()
	for _, name := range []string{"least", "asked", "askedAll", "leastAll", "share", "kept", "mainGrace", "stopGrace", "mainArgv", "sidecarArgv"} {
		if err, ok := vars[name].(*types.Err); ok {
			t.Fatalf("variable %s: %v", name, err)
		}
	}
	shares, sidecars := vars["share"].(traits.Lister), vars["sidecars"].(traits.Lister)
	for k := types.Int(0); k < sidecars.Size().(types.Int); k++ {
		stops += shares.Get(sidecars.Get(k)).(types.Int)
	}
	return vars["mainGrace"].(types.Int), stops
}

// injectedCommands are the command lines inject writes, by container.
func injectedCommands(t *testing.T, pod string, opts Options) map[string]string {
	t.Helper()
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal([]byte(pod), &doc); err != nil {
		t.Fatal(err)
	}
	r := inject.Resource(context.Background(), doc.Content[0], inject.Options{Mode: opts.Mode, Install: opts.Install,
		Image: opts.Image, Version: opts.Version, Presets: opts.Presets})
	if r.Status != inject.Injected {
		t.Fatalf("inject: %s", r)
	}
	type container struct {
		Name    string
		Command []string
	}
	var out struct {
		Spec struct {
			InitContainers []container `yaml:"initContainers"`
			Containers     []container
		}
	}
	if err := doc.Content[0].Decode(&out); err != nil {
		t.Fatal(err)
	}
	commands := map[string]string{}
	for _, c := range append(out.Spec.InitContainers, out.Spec.Containers...) {
		if slices.Contains(append(r.Mains, r.Sidecars...), c.Name) {
			commands[c.Name] = strings.Join(c.Command, " ")
		}
	}
	return commands
}

// policyCommands are the command lines the policy's variables write, by
// container.
func policyCommands(t *testing.T, vars map[string]any) map[string]string {
	t.Helper()
	native := func(v ref.Val, to reflect.Type) any {
		out, err := v.ConvertToNative(to)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		return out
	}
	names := native(vars["names"].(ref.Val), reflect.TypeFor[[]string]()).([]string)
	commands := map[string]string{}
	for _, list := range [][2]string{{"mains", "mainArgv"}, {"sidecars", "sidecarArgv"}} {
		at, argv := vars[list[0]].(traits.Lister), vars[list[1]].(traits.Lister)
		for k := types.Int(0); k < at.Size().(types.Int); k++ {
			i := at.Get(k).(types.Int)
			// mainArgv is by container, sidecarArgv by sidecar.
			line := argv.Get(k)
			if list[0] == "mains" {
				line = argv.Get(i)
			}
			words := native(line, reflect.TypeFor[[]string]()).([]string)
			if list[0] == "sidecars" {
				// As the patch writes it: Argo's executor, if any, in front.
				executor := vars["executor"].(traits.Lister).Get(i).(types.Int)
				program := native(vars["program"].(traits.Lister).Get(i), reflect.TypeFor[[]string]()).([]string)
				words = append(program[:executor:executor], words...)
			}
			commands[names[i]] = strings.Join(words, " ")
		}
	}
	return commands
}

// graceSplitPods are pods of one main and sidecars of presets or none,
// with periods around their shares: the grace split's corner cases.
func graceSplitPods() []string {
	pod := func(period string, images ...string) string {
		names := strings.Split("abcd"[:len(images)], "")
		src := "# policy: classic=injects native=injects\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n" +
			"    tandem.sh/sidecars: " + strings.Join(names, ",") + "\nspec:\n  restartPolicy: Never\n"
		if period != "" {
			src += "  terminationGracePeriodSeconds: " + period + "\n"
		}
		src += "  containers:\n  - {name: m, image: app:1, command: [/m]}\n"
		for i, image := range images {
			src += fmt.Sprintf("  - {name: %s, image: %q, command: [/%s]}\n", names[i], image, names[i])
		}
		return src
	}
	const fluentBit, vector = "fluent/fluent-bit:5.1.1", "timberio/vector:0.57.0-debian"
	const consul, otel = "hashicorp/consul-dataplane:2.0.1", "otel/opentelemetry-collector-contrib:0.159.0"
	return []string{
		pod("10", fluentBit, vector), pod("", "app:1", "app:1"), pod("100", fluentBit, vector),
		pod("10", "app:1", "app:1"), pod("", consul, otel, vector), pod("3", consul, otel),
		pod("1", "app:1", consul), pod("0", fluentBit, vector), pod("-1", fluentBit), pod("200", vector, fluentBit),
		pod("1", otel), pod("2", otel, consul),
	}
}

// readCorpusPods are the pods of testdata/pods by file name.
func readCorpusPods(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "pods", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the corpus: %v (%d files)", err, len(files))
	}
	pods := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pods[strings.TrimSuffix(filepath.Base(f), ".yaml")] = string(data)
	}
	return pods
}
