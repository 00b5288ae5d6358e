package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"k8s.io/utils/lru"

	"github.com/tandem-sh/tandem/kube/inject"
)

// DigestCache reads image configs for a long-running caller (the webhook)
// whose callers bring their own credentials: each lookup names its
// keychain. Configs are kept by digest, never by tag, because a tag can be
// pushed again; a tag costs one HEAD to learn its digest, a digest nothing.
// The cache holds at most size configs, least recently used out first.
type DigestCache struct {
	reader  configReader
	timeout time.Duration
	configs *lru.Cache // digest string → inject.ImageConfig (safe for concurrent use)
}

// NewDigestCache reads images for platform; insecure as for New; timeout
// bounds each lookup (keep it inside the webhook's own timeout).
func NewDigestCache(platform string, insecure []string, size int, timeout time.Duration) (*DigestCache, error) {
	reader, err := newConfigReader(platform, insecure)
	if err != nil {
		return nil, err
	}
	if size < 1 {
		return nil, fmt.Errorf("cache size %d: expected at least 1", size)
	}
	return &DigestCache{reader: reader, timeout: timeout, configs: lru.New(size)}, nil
}

// Len is how many configs are cached.
func (c *DigestCache) Len() int { return c.configs.Len() }

// Resolve returns the config of image for the cache's platform, reading the
// registry with keychain, and whether the config came from the cache (a tag
// still costs a HEAD). Errors are not cached: the next pod tries again.
func (c *DigestCache) Resolve(ctx context.Context, image string, keychain authn.Keychain) (inject.ImageConfig, bool, error) {
	ref, err := c.reader.reference(image)
	if err != nil {
		return inject.ImageConfig{}, false, err
	}
	type answer struct {
		config inject.ImageConfig
		cached bool
	}
	got, err := bounded(ctx, ref.String(), c.timeout, func(ctx context.Context) (answer, error) {
		config, cached, err := c.read(ref, []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain), retryOption})
		return answer{config, cached}, err
	})
	return got.config, got.cached, err
}

// read reads ref's config, from the cache when its digest is there.
func (c *DigestCache) read(ref name.Reference, opts []remote.Option) (inject.ImageConfig, bool, error) {
	digest, err := c.digestOf(ref, opts)
	if err != nil {
		return inject.ImageConfig{}, false, fmt.Errorf("read %s from its registry: %w", ref, err)
	}
	if hit, ok := c.configs.Get(digest.String()); ok {
		return hit.(inject.ImageConfig), true, nil
	}
	// Read by digest: the tag may have moved since the HEAD.
	config, err := c.reader.readRef(ref.Context().Digest(digest.String()), opts)
	if err != nil {
		return inject.ImageConfig{}, false, err
	}
	c.configs.Add(digest.String(), config)
	return config, false, nil
}

// digestOf is the digest a reference names: written in it, or asked of the
// registry with a HEAD (a GET where HEAD is refused).
func (c *DigestCache) digestOf(ref name.Reference, opts []remote.Option) (v1.Hash, error) {
	if d, ok := ref.(name.Digest); ok {
		return v1.NewHash(d.DigestStr())
	}
	desc, err := remote.Head(ref, opts...)
	if err == nil {
		return desc.Digest, nil
	}
	full, getErr := remote.Get(ref, opts...)
	if getErr != nil {
		return v1.Hash{}, getErr
	}
	return full.Digest, nil
}
