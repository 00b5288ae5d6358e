package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"

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
	for _, v := range (&generator{opts: Options{Presets: presets.Builtin()}}).grace() {
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
