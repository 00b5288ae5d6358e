package registry

import (
	"context"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/tandem-sh/tandem/cmd/tandemctl/inject"
)

// lookupTimeout bounds one image lookup: a registry that does not answer
// must not hold the command for ever.
const lookupTimeout = 30 * time.Second

// Resolver is an inject.EntrypointResolver over registries. Each image is
// read once per run.
type Resolver struct {
	reader   configReader
	keychain authn.Keychain

	mu    sync.Mutex
	cache map[string]result
}

type result struct {
	config inject.ImageConfig
	err    error
}

var _ inject.EntrypointResolver = (*Resolver)(nil)

// New reads images for platform (os/arch[/variant]); insecure lists the
// registry hosts (host or host:port) spoken to over plain HTTP. Credentials
// are the user's docker and podman ones (the default keychain).
func New(platform string, insecure []string) (*Resolver, error) {
	reader, err := newConfigReader(platform, insecure)
	if err != nil {
		return nil, err
	}
	return &Resolver{reader: reader, keychain: authn.DefaultKeychain, cache: map[string]result{}}, nil
}

// Resolve returns the config of image for the resolver's platform.
func (r *Resolver) Resolve(ctx context.Context, image string) (inject.ImageConfig, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if res, ok := r.cache[image]; ok {
		return res.config, res.err
	}
	config, err := r.read(ctx, image)
	r.cache[image] = result{config, err}
	return config, err
}

func (r *Resolver) read(ctx context.Context, image string) (inject.ImageConfig, error) {
	ref, err := r.reader.reference(image)
	if err != nil {
		return inject.ImageConfig{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	return r.reader.readRef(ref, []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(r.keychain)})
}
