package release

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Publish pushes the multi-arch index of the archive at path, its images
// and their layers, to repo:version, with the credentials of docker login
// or podman login (authn.DefaultKeychain), and returns the index's digest. The
// archive must be version's: a tag never names another release's images.
func Publish(ctx context.Context, path string, repo name.Repository, version string) (v1.Hash, error) {
	idx, cleanup, err := OpenArchive(path)
	if err != nil {
		return v1.Hash{}, err
	}
	defer cleanup()
	manifest, err := idx.IndexManifest()
	if err != nil {
		return v1.Hash{}, err
	}
	if got := manifest.Annotations[AnnotationVersion]; got != version {
		return v1.Hash{}, fmt.Errorf("%s holds version %q, not %q: make release VERSION=%s first", path, got, version, version)
	}
	digest, err := idx.Digest()
	if err != nil {
		return v1.Hash{}, err
	}
	ref := repo.Tag(version)
	err = remote.WriteIndex(ref, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return v1.Hash{}, fmt.Errorf("push %s: %w", ref, err)
	}
	return digest, nil
}
