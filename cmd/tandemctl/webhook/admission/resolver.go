package admission

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/tandem-sh/tandem/cmd/tandemctl/inject"
)

// podResolver reads images for one pod with that pod's credentials, made
// at the first lookup: a pod whose containers all have commands and stop
// signals costs no call to the API server. An image that two containers
// share is asked for once. Each lookup is counted by its result; failed
// tells the admission that a refusal came from a lookup.
type podResolver struct {
	images    ImageReader
	keychains KeychainSource
	pod       PodCredentials
	recorder  Recorder
	failed    atomic.Bool

	once     sync.Once
	keychain authn.Keychain
	err      error
	seen     map[string]inject.ImageConfig
}

var _ inject.EntrypointResolver = (*podResolver)(nil)

func (r *podResolver) Resolve(ctx context.Context, image string) (inject.ImageConfig, error) {
	if config, ok := r.seen[image]; ok {
		return config, nil
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
	return config, err
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
	config, cached, err := r.images.Resolve(ctx, image, r.keychain)
	if err == nil {
		if r.seen == nil {
			r.seen = map[string]inject.ImageConfig{}
		}
		r.seen[image] = config
	}
	return config, cached, err
}
