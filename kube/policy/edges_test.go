package policy

import (
	"fmt"
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
		g := &generator{opts: Options{Install: tt.install}}
		object := map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "side", "volumeMounts": []any{map[string]any{"name": "data", "mountPath": tt.at}}},
		}}}
		got := fmt.Sprint(eval(t, "size("+g.collisions()+")", map[string]any{"object": object}))
		if want := fmt.Sprint(map[bool]int{true: 1}[tt.collide]); got != want {
			t.Errorf("mountPath %s (%s): %s collisions; want %s", tt.at, tt.install, got, want)
		}
	}
}
