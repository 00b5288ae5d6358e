// Package registry reads images' ENTRYPOINT, CMD and STOPSIGNAL from their
// registries with go-containerregistry, for the platform of the nodes.
package registry

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/tandem-sh/tandem/cmd/tandemctl/inject"
)

// lookupTimeout bounds one image lookup: a registry that does not answer
// must not hold the command for ever.
const lookupTimeout = 30 * time.Second

// Resolver is an inject.EntrypointResolver over registries. Each image is
// read once per run.
type Resolver struct {
	platform v1.Platform
	insecure []string
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
	p, err := v1.ParsePlatform(platform)
	if err != nil || p.OS == "" || p.Architecture == "" {
		return nil, fmt.Errorf("platform %q: expected os/arch[/variant], e.g. linux/amd64", platform)
	}
	return &Resolver{platform: *p, insecure: insecure, keychain: authn.DefaultKeychain, cache: map[string]result{}}, nil
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
	ref, err := r.reference(image)
	if err != nil {
		return inject.ImageConfig{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	return r.readRef(ref, []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(r.keychain)})
}

// platformImage picks the resolver's platform from an index, or takes a
// single image as it is (its config says its platform).
func (r *Resolver) platformImage(desc *remote.Descriptor) (v1.Image, error) {
	if !desc.MediaType.IsIndex() {
		return desc.Image()
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, err
	}
	manifest, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var have []string
	for _, m := range manifest.Manifests {
		if m.Platform == nil {
			continue
		}
		if m.Platform.Satisfies(r.platform) {
			return idx.Image(m.Digest)
		}
		have = append(have, m.Platform.String())
	}
	return nil, fmt.Errorf("no image for platform %s (the index has %s): set --platform to the nodes' platform",
		r.platform, strings.Join(have, ", "))
}
