package registry

import (
	"context"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/tandem-sh/tandem/kube/inject"
)

// MaxLookups is how many images a Resolver reads at once: enough to hide
// a slow registry's latency, few enough not to look like a flood to it.
const MaxLookups = 8

// Resolver is an inject.EntrypointResolver over registries for one run of
// `tandemctl inject`. Each image is read once per run, whoever asks and
// however many ask at once; at most MaxLookups are read at a time, each
// bounded by the timeout.
type Resolver struct {
	reader   configReader
	keychain authn.Keychain
	timeout  time.Duration
	// slots holds a token per lookup in flight.
	slots chan struct{}

	mu     sync.Mutex
	images map[string]*lookup
}

// lookup is one image's read; done closes when config and err are set.
type lookup struct {
	done   chan struct{}
	config inject.ImageConfig
	err    error
}

var (
	_ inject.EntrypointResolver = (*Resolver)(nil)
	_ inject.Prefetcher         = (*Resolver)(nil) // inject.Files reads a run's images at once
)

// New reads images for platform (os/arch[/variant]); insecure lists the
// registry hosts (host or host:port) spoken to over plain HTTP; timeout
// bounds each lookup. Credentials are the user's docker and podman ones
// (the default keychain).
func New(platform string, insecure []string, timeout time.Duration) (*Resolver, error) {
	reader, err := newConfigReader(platform, insecure)
	if err != nil {
		return nil, err
	}
	return &Resolver{reader: reader, keychain: authn.DefaultKeychain, timeout: timeout,
		slots: make(chan struct{}, MaxLookups), images: map[string]*lookup{}}, nil
}

// Resolve returns the config of image for the resolver's platform. The
// first caller for an image reads it; the others wait for that read.
func (r *Resolver) Resolve(ctx context.Context, image string) (inject.ImageConfig, error) {
	r.mu.Lock()
	l, started := r.images[image]
	if !started {
		l = &lookup{done: make(chan struct{})}
		r.images[image] = l
	}
	r.mu.Unlock()
	if !started {
		l.config, l.err = r.read(ctx, image)
		close(l.done)
	}
	select {
	case <-l.done:
		return l.config, l.err
	case <-ctx.Done():
		return inject.ImageConfig{}, ctx.Err()
	}
}

// ResolveAll reads images concurrently (at most MaxLookups at once) and
// returns when all are read; Resolve then answers each from memory, in
// whatever order it is asked, so a run's output never depends on which
// registry answered first.
func (r *Resolver) ResolveAll(ctx context.Context, images []string) {
	var wg sync.WaitGroup
	for _, image := range images {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = r.Resolve(ctx, image) // kept for Resolve
		}()
	}
	wg.Wait()
}

// read takes a slot, then reads image within the timeout: the bound is
// the registry's, not the time spent queued behind other lookups.
func (r *Resolver) read(ctx context.Context, image string) (inject.ImageConfig, error) {
	ref, err := r.reader.reference(image)
	if err != nil {
		return inject.ImageConfig{}, err
	}
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-ctx.Done():
		return inject.ImageConfig{}, ctx.Err()
	}
	return bounded(ctx, ref.String(), r.timeout, func(ctx context.Context) (inject.ImageConfig, error) {
		return r.reader.readRef(ref, []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(r.keychain), retryOption})
	})
}
