package release

import (
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The annotations every manifest and index of a release carries.
const (
	AnnotationSource   = "org.opencontainers.image.source"
	AnnotationVersion  = "org.opencontainers.image.version"
	AnnotationRevision = "org.opencontainers.image.revision"
	AnnotationCreated  = "org.opencontainers.image.created"
	AnnotationLicenses = "org.opencontainers.image.licenses"
	// AnnotationRefName names the index in an archive's index.json.
	AnnotationRefName = "org.opencontainers.image.ref.name"
	// annotationContainerdName is the name `ctr images import` gives it.
	annotationContainerdName = "io.containerd.image.name"
)

// Meta says which release an image belongs to.
type Meta struct {
	Source   string    // the repository's URL
	Version  string    // vX.Y.Z
	Revision string    // the commit, in full
	Created  time.Time // the commit's time (SOURCE_DATE_EPOCH)
}

// Annotations are the org.opencontainers.image.* annotations of m, the
// project's License among them.
func (m Meta) Annotations() map[string]string {
	return map[string]string{
		AnnotationSource:   m.Source,
		AnnotationVersion:  m.Version,
		AnnotationRevision: m.Revision,
		AnnotationCreated:  m.Created.UTC().Format(time.RFC3339),
		AnnotationLicenses: License,
	}
}

// Spec is an image FROM scratch: its files, in one layer, and how it runs.
type Spec struct {
	Files      []File
	Entrypoint []string
	User       string // "" is root
}

// Build returns the linux/arch image of spec, annotated with meta.
func Build(spec Spec, arch string, meta Meta) (v1.Image, error) {
	layer, err := newLayer(spec.Files, meta.Created)
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: meta.Created.UTC()}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		// The license as a label too: docker inspect shows labels, not annotations.
		Config: v1.Config{Entrypoint: spec.Entrypoint, User: spec.User,
			Labels: map[string]string{AnnotationLicenses: License}},
		RootFS: v1.RootFS{Type: "layers"}, // runtimes refuse any other
	})
	if err != nil {
		return nil, fmt.Errorf("image config: %w", err)
	}
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{Created: created, CreatedBy: "tandem release"}})
	if err != nil {
		return nil, fmt.Errorf("image layer: %w", err)
	}
	if img, err = mutate.CreatedAt(img, created); err != nil {
		return nil, fmt.Errorf("image time: %w", err)
	}
	return mutate.Annotations(img, meta.Annotations()).(v1.Image), nil
}

// Index returns the multi-arch index of images (one per architecture, in
// the order given), annotated with meta.
func Index(images []v1.Image, meta Meta) (v1.ImageIndex, error) {
	adds := make([]mutate.IndexAddendum, 0, len(images))
	for _, img := range images {
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture},
		}})
	}
	idx := mutate.IndexMediaType(mutate.AppendManifests(empty.Index, adds...), types.OCIImageIndex)
	return mutate.Annotations(idx, meta.Annotations()).(v1.ImageIndex), nil
}
