package helmchart

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"helm.sh/helm/v4/pkg/registry"
)

// Pushed is where Push put the chart.
type Pushed struct {
	Ref    string // oci://HOST/PATH/charts/tandem:X.Y.Z, less oci://
	Digest string // the manifest's
}

// Ref is the chart's reference under registry (HOST/PATH, as for the
// images): HOST/PATH/charts/tandem, for `helm install oci://…`.
func Ref(registryPath string) string {
	return registryPath + "/charts/" + Name
}

// Push pushes the packaged chart at path to REGISTRY/charts/tandem:X.Y.Z,
// X.Y.Z being version's chart version, which the archive must hold. It
// logs in as `helm registry login` or `docker login` did. A registry on
// localhost or 127.0.0.1 is spoken to in plain HTTP, as go-containerregistry
// does for the images. The manifest's creation time is the archive's
// (the commit's), so a push of the same dist/ gives the same digest.
func Push(path, registryPath, version string) (Pushed, error) {
	chartVersion, err := Version(version)
	if err != nil {
		return Pushed{}, err
	}
	repo, err := name.NewRepository(Ref(registryPath))
	if err != nil {
		return Pushed{}, fmt.Errorf("registry %q: %w (expected HOST/PATH, e.g. ghcr.io/tandem-sh)", registryPath, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Pushed{}, fmt.Errorf("%w: make release VERSION=%s first", err, version)
	}
	created, err := archiveTime(data)
	if err != nil {
		return Pushed{}, fmt.Errorf("%s: %w", path, err)
	}
	var opts []registry.ClientOption
	if repo.Registry.Scheme() == "http" {
		opts = append(opts, registry.ClientOptPlainHTTP())
	}
	client, err := registry.NewClient(opts...)
	if err != nil {
		return Pushed{}, err
	}
	ref := repo.String() + ":" + chartVersion
	res, err := client.Push(data, ref, registry.PushOptCreationTime(created.UTC().Format(time.RFC3339)))
	if err != nil {
		return Pushed{}, fmt.Errorf("push %s as %s: %w", path, ref, err)
	}
	return Pushed{Ref: res.Ref, Digest: res.Manifest.Digest}, nil
}

// archiveTime is the time of the chart archive's first file.
func archiveTime(data []byte) (time.Time, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return time.Time{}, fmt.Errorf("not a chart archive: %w", err)
	}
	hdr, err := tar.NewReader(zr).Next()
	if err == io.EOF {
		return time.Time{}, fmt.Errorf("not a chart archive: empty")
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("not a chart archive: %w", err)
	}
	return hdr.ModTime, nil
}
