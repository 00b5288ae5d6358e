package registry

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/tandem-sh/tandem/kube/inject"
)

// configReader reads the config of one image for the nodes' platform; the
// Resolver and the DigestCache both read through it.
type configReader struct {
	platform v1.Platform
	insecure []string
}

// newConfigReader reads for platform (os/arch[/variant]); insecure lists
// the registry hosts (host or host:port) spoken to over plain HTTP.
func newConfigReader(platform string, insecure []string) (configReader, error) {
	p, err := v1.ParsePlatform(platform)
	if err != nil || p.OS == "" || p.Architecture == "" {
		return configReader{}, fmt.Errorf("platform %q: expected os/arch[/variant], e.g. linux/amd64", platform)
	}
	return configReader{platform: *p, insecure: insecure}, nil
}

// reference parses image, in plain HTTP for the insecure registries.
func (r configReader) reference(image string) (name.Reference, error) {
	ref, err := name.ParseReference(image)
	if err != nil {
		return nil, fmt.Errorf("image reference %q: %w", image, err)
	}
	for _, host := range r.insecure {
		if host == ref.Context().RegistryStr() {
			return name.ParseReference(image, name.Insecure)
		}
	}
	return ref, nil
}

// readRef reads the config of ref for r's platform.
func (r configReader) readRef(ref name.Reference, opts []remote.Option) (inject.ImageConfig, error) {
	desc, err := remote.Get(ref, opts...)
	if err != nil {
		return inject.ImageConfig{}, fmt.Errorf("read %s from its registry: %w", ref, err)
	}
	img, err := r.platformImage(desc)
	if err != nil {
		return inject.ImageConfig{}, fmt.Errorf("image %s: %w", ref, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return inject.ImageConfig{}, fmt.Errorf("read the config of %s: %w", ref, err)
	}
	got := v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant}
	if cfg.OS != "" && !got.Satisfies(r.platform) {
		return inject.ImageConfig{}, &inject.PlatformError{Found: fmt.Sprintf("image %s is for %s", ref, got), Want: r.platform.String()}
	}
	return inject.ImageConfig{Entrypoint: cfg.Config.Entrypoint, Cmd: cfg.Config.Cmd, StopSignal: cfg.Config.StopSignal}, nil
}

// platformImage picks r's platform from an index, or takes a single image
// as it is (its config says its platform).
func (r configReader) platformImage(desc *remote.Descriptor) (v1.Image, error) {
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
	return nil, &inject.PlatformError{Found: "the index has " + strings.Join(have, ", "), Want: r.platform.String()}
}
