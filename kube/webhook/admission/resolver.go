package admission

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/tandem-sh/tandem/kube/inject"
)

// podResolver reads images for one pod with that pod's credentials, made
// at the first lookup: a pod whose containers all have commands and stop
// signals costs no call to the API server. An image that two containers
// share is asked for once, and so is one that failed. Each lookup is
// counted by its result; failed tells the admission that a refusal came
// from a lookup.
type podResolver struct {
	images    ImageReader
	keychains KeychainSource
	pod       PodCredentials
	recorder  Recorder
	failed    atomic.Bool

	once     sync.Once
	keychain authn.Keychain
	err      error

	mu   sync.Mutex
	seen map[string]answer
}

// answer is what the lookup of one image said.
type answer struct {
	config inject.ImageConfig
	err    error
}

// maxPodLookups bounds the lookups of one pod in flight at once, as
// tandemctl inject bounds its own (registry.MaxLookups).
const maxPodLookups = 8

var _ inject.EntrypointResolver = (*podResolver)(nil)

func (r *podResolver) Resolve(ctx context.Context, image string) (inject.ImageConfig, error) {
	r.mu.Lock()
	got, ok := r.seen[image]
	r.mu.Unlock()
	if ok {
		return got.config, got.err
	}
	start := time.Now()
	config, cached, err := r.lookup(ctx, image)
	result := LookupMiss
	switch {
	case err != nil:
		result = LookupError
		r.failed.Store(true)
	case cached:
		result = LookupHit
	}
	r.recorder.Lookup(result, time.Since(start))
	r.mu.Lock()
	if r.seen == nil {
		r.seen = map[string]answer{}
	}
	r.seen[image] = answer{config, err}
	r.mu.Unlock()
	return config, err
}

// resolveAll reads images at once, so that a pod whose images cannot be
// read is answered within one lookup timeout rather than one per image:
// the API server gives the whole admission only its timeoutSeconds.
func (r *podResolver) resolveAll(ctx context.Context, images []string) {
	slots := make(chan struct{}, maxPodLookups)
	var wg sync.WaitGroup
	for _, image := range images {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			_, _ = r.Resolve(ctx, image) // kept for the injection's own calls
		}()
	}
	wg.Wait()
}

// lookup reads image with the pod's credentials, made at the first call.
func (r *podResolver) lookup(ctx context.Context, image string) (inject.ImageConfig, bool, error) {
	r.once.Do(func() {
		r.keychain = authn.NewMultiKeychain() // empty: anonymous
		if r.keychains != nil {
			r.keychain, r.err = r.keychains.Keychain(ctx, r.pod)
		}
	})
	if r.err != nil {
		return inject.ImageConfig{}, false, fmt.Errorf("credentials of service account %s/%s: %w", r.pod.Namespace, r.pod.ServiceAccount, r.err)
	}
	return r.images.Resolve(ctx, image, r.keychain)
}
