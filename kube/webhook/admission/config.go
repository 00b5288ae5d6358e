package admission

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/rs/zerolog"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-sh/tandem/kube/inject"
)

// Config is what the /mutate handler needs, built from the flags.
type Config struct {
	// Inject holds --mode, --image, the version and --sidecar; its
	// Resolver is replaced per pod (see Images).
	Inject inject.Options
	// SidecarImages are globs (--sidecar-image; * spans slashes): a
	// container whose image matches one is a sidecar.
	SidecarImages []string
	OnError       inject.OnError
	// Selector is what a namespace's labels must match; Namespaces reads
	// them. A nil Namespaces trusts the API server's namespaceSelector.
	Selector   labels.Selector
	Namespaces NamespaceLabels
	// Images reads image configs; nil turns lookups off. Keychains gives
	// each pod its credentials; nil means anonymous.
	Images    ImageReader
	Keychains KeychainSource
	Logger    zerolog.Logger
	// Recorder counts admissions and lookups; nil records nothing.
	Recorder Recorder
}

// NamespaceLabels reads the labels of a namespace.
type NamespaceLabels interface {
	Labels(ctx context.Context, namespace string) (map[string]string, error)
}

// ImageReader reads an image's config with the given credentials, and
// says whether it came from its cache (registry.DigestCache).
type ImageReader interface {
	Resolve(ctx context.Context, image string, keychain authn.Keychain) (config inject.ImageConfig, cached bool, err error)
}

// PodCredentials names what a pod pulls its images with.
type PodCredentials struct {
	Namespace, ServiceAccount string
	PullSecrets               []string
}

// KeychainSource makes the keychain of one pod (its pull secrets, its
// service account's, the docker config).
type KeychainSource interface {
	Keychain(ctx context.Context, pod PodCredentials) (authn.Keychain, error)
}

// Check refuses a configuration that cannot work.
func (c Config) Check() error {
	for _, p := range c.SidecarImages {
		if _, err := compileImageGlob(p); err != nil {
			return err
		}
	}
	if c.Inject.Image == "" {
		return fmt.Errorf("image: expected an image that holds /tandem")
	}
	if c.Selector == nil {
		return fmt.Errorf("namespace selector: expected one (tandem.sh/inject=enabled)")
	}
	_, err := inject.ParseOnError(string(c.OnError))
	return err
}
