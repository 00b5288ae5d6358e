package registry

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func TestResolve(t *testing.T) {
	host, requests := testRegistry(t)
	amd64 := v1.Platform{OS: "linux", Architecture: "amd64"}
	arm64 := v1.Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: image(t, amd64, []string{"/amd64"}, []string{"serve"}, "SIGQUIT"), Descriptor: v1.Descriptor{Platform: &amd64}},
		mutate.IndexAddendum{Add: image(t, arm64, []string{"/arm64"}, nil, ""), Descriptor: v1.Descriptor{Platform: &arm64}})
	push(t, host+"/multi:1", func(r name.Reference) error { return remote.WriteIndex(r, idx) })
	push(t, host+"/single:1", func(r name.Reference) error { return remote.Write(r, image(t, arm64, nil, []string{"sh"}, "")) })

	tests := []struct {
		platform, image string
		entrypoint, cmd []string
		stop, err       string
	}{
		{"linux/amd64", host + "/multi:1", []string{"/amd64"}, []string{"serve"}, "SIGQUIT", ""},
		{"linux/arm64", host + "/multi:1", []string{"/arm64"}, nil, "", ""},
		{"linux/s390x", host + "/multi:1", nil, nil, "", "no image for platform linux/s390x (the index has linux/amd64, linux/arm64/v8)"},
		{"linux/arm64", host + "/single:1", nil, []string{"sh"}, "", ""},
		{"linux/amd64", host + "/single:1", nil, nil, "", "no image for platform linux/amd64 (image " + host + "/single:1 is for linux/arm64/v8)"},
		{"linux/amd64", host + "/missing:1", nil, nil, "", "read " + host + "/missing:1 from its registry"},
		{"linux/amd64", "Not A Reference", nil, nil, "", `image reference "Not A Reference"`},
	}
	for _, tt := range tests {
		r, err := New(tt.platform, []string{host}, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Resolve(context.Background(), tt.image)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s on %s: error %v; want one containing %q", tt.image, tt.platform, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Entrypoint, tt.entrypoint) || !slices.Equal(got.Cmd, tt.cmd) || got.StopSignal != tt.stop {
			t.Errorf("%s on %s: %+v, %v; want %q %q %q", tt.image, tt.platform, got, err, tt.entrypoint, tt.cmd, tt.stop)
		}
	}

	// An image is read once per run.
	r, _ := New("linux/amd64", nil, 10*time.Second)
	if _, err := r.Resolve(context.Background(), host+"/multi:1"); err != nil {
		t.Fatal(err)
	}
	before := requests.Load()
	if _, err := r.Resolve(context.Background(), host+"/multi:1"); err != nil || requests.Load() != before {
		t.Errorf("a second lookup of the same image made %d requests (%v); want none", requests.Load()-before, err)
	}
}

func TestNewRejectsBadPlatforms(t *testing.T) {
	for _, p := range []string{"", "amd64", "linux/"} {
		if _, err := New(p, nil, time.Second); err == nil || !strings.Contains(err.Error(), "expected os/arch[/variant]") {
			t.Errorf("New(%q): %v; want an error", p, err)
		}
	}
}
