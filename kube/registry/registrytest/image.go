// Package registrytest makes images for tests of image lookups, in the
// registry package and in tandemctl's.
package registrytest

import (
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
)

// Image is a small random image for platform whose config says
// entrypoint, cmd and the STOPSIGNAL stop.
func Image(t testing.TB, platform v1.Platform, entrypoint, cmd []string, stop string) v1.Image {
	t.Helper()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = platform.OS, platform.Architecture, platform.Variant
	cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.StopSignal = entrypoint, cmd, stop
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		t.Fatal(err)
	}
	return img
}
