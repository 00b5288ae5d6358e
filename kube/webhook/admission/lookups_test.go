package admission

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// silentImages is a registry that holds every lookup until released, then
// fails it.
type silentImages struct {
	arrived chan string
	release chan struct{}
}

func (s *silentImages) Resolve(ctx context.Context, image string, _ authn.Keychain) (inject.ImageConfig, bool, error) {
	s.arrived <- image
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	return inject.ImageConfig{}, false, errors.New("GET https://" + image + ": no answer")
}

// A pod's images are read at once, so a pod whose registries do not
// answer is refused within one lookup's time, and the refusal names every
// container.
func TestPodImagesReadAtOnce(t *testing.T) {
	images := &silentImages{arrived: make(chan string, 4), release: make(chan struct{})}
	f := newFixture(t, func(c *Config) { c.Images = images })
	pod := strings.Replace(jobPod, `"command":["sh","-c","pg_dump > /out/db.sql"],`, "", 1)
	answered := make(chan *admissionv1.AdmissionResponse, 1)
	go func() { _, resp := f.post(t, reviewOf(t, "batch", pod)); answered <- resp }()
	for range 2 {
		select {
		case <-images.arrived:
		case <-time.After(30 * time.Second):
			t.Fatal("the second image was not asked for while the first was held: lookups one after another")
		}
	}
	close(images.release)
	resp := <-answered
	if resp == nil || resp.Allowed || resp.Result == nil {
		t.Fatalf("%+v; want a refusal", resp)
	}
	for _, want := range []string{"not injected (2 problems):", `container "export" (image "registry.example/app:1")`, `container "db-proxy" (image "registry.example/proxy:2")`} {
		if !strings.Contains(resp.Result.Message, want) {
			t.Errorf("message %q lacks %q", resp.Result.Message, want)
		}
	}
	if extra := len(images.arrived); extra != 0 {
		t.Errorf("%d more lookups; want each image asked for once", extra)
	}
}
