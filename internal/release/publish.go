package release

import (
	"context"
	"fmt"
	"strings"

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
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}
	tags := Tags(version)
	ref := repo.Tag(tags[0])
	if err := remote.WriteIndex(ref, idx, opts...); err != nil {
		return v1.Hash{}, fmt.Errorf("push %s: %w", ref, err)
	}
	for _, tag := range tags[1:] {
		if err := remote.Tag(repo.Tag(tag), idx, opts...); err != nil {
			return v1.Hash{}, fmt.Errorf("tag %s as %s: %w", ref, tag, err)
		}
	}
	return digest, nil
}

// Tags are the tags a release is pushed under: its version, and latest for
// a final release (no -pre suffix), which the manifests in examples/ name.
func Tags(version string) []string {
	if strings.Contains(version, "-") {
		return []string{version}
	}
	return []string{version, "latest"}
}
