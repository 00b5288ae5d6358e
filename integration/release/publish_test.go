//go:build release

package release

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/tandem-sh/tandem/integration/kit"
	"github.com/tandem-sh/tandem/internal/release"
)

// TestPublishServesBothArchitectures: `make publish` pushes dist/'s two
// multi-arch images; the registry serves each index with the archive's
// digest and annotations, linux/amd64 and linux/arm64 with the archive's
// manifests, and each image holds dist/'s binary for its architecture.
func TestPublishServesBothArchitectures(t *testing.T) {
	dist := distDir(t)
	registry := startRegistry(t) + "/tandem-sh"
	version := annotations(t, archive(t, dist, "tandem"))[release.AnnotationVersion]
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	make := exec.Command("make", "--no-print-directory", "-C", root, "publish",
		"VERSION="+version, "REGISTRY="+registry, "DIST="+dist)
	t.Logf("make publish:\n%s", output(t, make))
	for _, image := range images {
		want := archive(t, dist, image)
		ref, err := name.ParseReference(registry + "/" + image + ":" + version)
		if err != nil {
			t.Fatal(err)
		}
		got, err := remote.Index(ref)
		if err != nil {
			t.Fatal(err)
		}
		checkServed(t, image, dist, got, want)
		if release.Tags(version)[len(release.Tags(version))-1] != "latest" {
			if _, err := remote.Index(ref.Context().Tag("latest")); err == nil {
				t.Errorf("%s: the pre-release %s moved latest", image, version)
			}
		}
	}
}

// checkServed compares the served index of image with the archive's.
func checkServed(t *testing.T, image, dist string, got, want v1.ImageIndex) {
	t.Helper()
	gotDigest, _ := got.Digest()
	wantDigest, _ := want.Digest()
	if gotDigest != wantDigest {
		t.Errorf("%s: served index %s, the archive's is %s", image, gotDigest, wantDigest)
	}
	if g, w := annotations(t, got), annotations(t, want); len(w) != 5 || !equalMaps(g, w) {
		t.Errorf("%s: served annotations %v, want the archive's five %v", image, g, w)
	}
	gotManifest, _ := got.IndexManifest()
	wantManifest, _ := want.IndexManifest()
	var platforms []string
	for i, desc := range gotManifest.Manifests {
		platforms = append(platforms, desc.Platform.String())
		if i >= len(wantManifest.Manifests) || desc.Digest != wantManifest.Manifests[i].Digest {
			t.Errorf("%s %s: served manifest %s, not the archive's", image, desc.Platform, desc.Digest)
			continue
		}
		img, err := got.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		bin, err := os.ReadFile(filepath.Join(dist, image+"-linux-"+desc.Platform.Architecture))
		if err != nil {
			t.Fatal(err)
		}
		if served := fileInImage(t, img, image); !bytes.Equal(served, bin) {
			t.Errorf("%s %s: /%s is %d bytes, not dist/'s binary (%d bytes)", image, desc.Platform, image, len(served), len(bin))
		}
	}
	if len(platforms) != 2 || platforms[0] != "linux/amd64" || platforms[1] != "linux/arm64" {
		t.Errorf("%s: served platforms %v, want [linux/amd64 linux/arm64]", image, platforms)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// fileInImage is the content of the file at the image's root named name,
// read from the registry's layers.
func fileInImage(t *testing.T, img v1.Image, name string) []byte {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range layers {
		rc, err := layer.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		tr := tar.NewReader(rc)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if hdr.Name == name {
				data, err := io.ReadAll(tr)
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
		}
	}
	return nil
}

// startRegistry runs Debian's docker-registry on a free port of 127.0.0.1
// until the test ends and returns its HOST:PORT.
func startRegistry(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("docker-registry")
	skipUnless(t, err == nil, "docker-registry is not in PATH (apt-get install docker-registry)")
	return kit.StartLoopbackRegistry(t, bin)
}
