package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/inject"
)

// A mount at the directory tandem mounts its volume at collides however
// its path is spelled, as inject has it.
func TestMountCollisionAsDirectory(t *testing.T) {
	for _, tt := range []struct {
		at      string
		install inject.Install
		collide bool
	}{
		{"/run/tandem/", inject.InitCopy, true},
		{"//run/tandem", inject.InitCopy, true},
		{"/run/./tandem", inject.InitCopy, true},
		{"run/tandem", inject.InitCopy, true},
		{"/run/tandem-bin/", inject.ImageVolume, true},
		{"/run/tandem-bin/", inject.InitCopy, false},
		{"/run/tandem/data", inject.InitCopy, false},
		{"/data", inject.ImageVolume, false},
	} {
		g := newGenerator(Options{Install: tt.install})
		object := map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "side", "volumeMounts": []any{map[string]any{"name": "data", "mountPath": tt.at}}},
		}}}
		got := fmt.Sprint(eval(t, "size("+g.collisions()+")", map[string]any{"object": object}))
		if want := fmt.Sprint(map[bool]int{true: 1}[tt.collide]); got != want {
			t.Errorf("mountPath %s (%s): %s collisions; want %s", tt.at, tt.install, got, want)
		}
	}
}

// The policy refuses a tandem.sh/ annotation tandem does not know, and a
// tandem.sh/inject value it does not take, saying so, as inject does; a
// known one that it does not read, saying that.
func TestUnknownAnnotationAsInject(t *testing.T) {
	for _, tt := range []struct {
		ann  map[string]any
		want string
	}{
		{map[string]any{"tandem.sh/need": "s"}, "[unknown annotation tandem.sh/need: tandem's are tandem.sh/sidecars, tandem.sh/needs, "},
		{map[string]any{"tandem.sh/max-restart.s": "3"}, "[unknown annotation tandem.sh/max-restart.s: "},
		{map[string]any{"tandem.sh/max-restarts": "3"}, "[unknown annotation tandem.sh/max-restarts: "},
		{map[string]any{"tandem.sh/inject": "no"}, "[tandem.sh/inject: expected disabled or false to leave the pod alone, or enabled or true]"},
		{map[string]any{"tandem.sh/inject": "true", "tandem.sh/max-restarts.s": "3", "tandem.sh/sidecar-grace": "3s", "example.com/need": "x"}, "[]"},
	} {
		got := fmt.Sprint(eval(t, annotationErrors().expr, map[string]any{"variables": map[string]any{"ann": tt.ann}}))
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%v: %s; want %s…", tt.ann, got, tt.want)
		}
	}
	for _, key := range []string{"tandem.sh/need", "tandem.sh/needs", "tandem.sh/needs.x", "tandem.sh/stop-delay.s", "tandem.sh/stop-delay",
		"tandem.sh/sidecar-grace", "tandem.sh/sidecar-grace.s", "tandem.sh/policy", "tandem.sh/injected", "tandem.sh/inject"} {
		if got := eval(t, knownAnnotation("k"), map[string]any{"k": key}); got != inject.KnownAnnotation(key) {
			t.Errorf("%s: known %v in the policy, %v in inject", key, got, inject.KnownAnnotation(key))
		}
	}
}

// tandem.sh/inject: "false" opts a pod out, as "disabled" does.
func TestInjectFalseOptsOut(t *testing.T) {
	var cond string
	for _, c := range matchConditions() {
		if c.Name == "not-opted-out" {
			cond = c.Expression
		}
	}
	for value, match := range map[string]bool{"disabled": false, "false": false, "true": true, "enabled": true, "no": true} {
		object := map[string]any{"metadata": map[string]any{"annotations": map[string]any{inject.InjectKey: value}}}
		if got := eval(t, cond, map[string]any{"object": object}); got != match {
			t.Errorf("tandem.sh/inject: %s: matched %v; want %v", value, got, match)
		}
	}
}
