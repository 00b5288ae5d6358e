package release

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

var testMeta = Meta{Source: "https://github.com/tandem-sh/tandem", Version: "v1.2.3", Revision: "0123456789abcdef0123456789abcdef01234567", Created: epoch}

// testIndex is tandemctl's multi-arch index built from fake binaries.
func testIndex(t *testing.T) v1.ImageIndex {
	t.Helper()
	var imgs []v1.Image
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := Build(TandemctlImage([]byte("tandemctl for "+arch), []byte("certs")), arch, testMeta)
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, img)
	}
	idx, err := Index(imgs, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// writeTestArchive writes testIndex's archive into a file and returns its path.
func writeTestArchive(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteArchive(&buf, testIndex(t), "ghcr.io/tandem-sh/tandemctl:v1.2.3", testMeta); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tandemctl-image.tar")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWriteArchiveIsReproducible: the same binaries and meta give the same
// archive, byte for byte.
func TestWriteArchiveIsReproducible(t *testing.T) {
	first, err := os.ReadFile(writeTestArchive(t))
	if err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(writeTestArchive(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Fatal("two archives of the same images differ")
	}
}

// TestOpenArchiveReadsTheIndexBack: the archive's index is the one
// written: both platforms, the annotations on the index and on every
// image, and each image's config.
func TestOpenArchiveReadsTheIndexBack(t *testing.T) {
	want := testIndex(t)
	got, cleanup, err := OpenArchive(writeTestArchive(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	wantDigest, _ := want.Digest()
	gotDigest, err := got.Digest()
	if err != nil || gotDigest != wantDigest {
		t.Fatalf("index digest %s (%v), want %s", gotDigest, err, wantDigest)
	}
	checkIndex(t, got, testMeta)
}

// checkIndex asserts that idx serves linux/amd64 and linux/arm64, each
// annotated with meta, as is idx itself, and that each config says its
// architecture and tandemctl's entrypoint and user.
func checkIndex(t *testing.T, idx v1.ImageIndex, meta Meta) {
	t.Helper()
	manifest, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	checkAnnotations(t, "index", manifest.Annotations, meta)
	var archs []string
	for _, desc := range manifest.Manifests {
		archs = append(archs, desc.Platform.String())
		img, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		m, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		checkAnnotations(t, desc.Platform.String(), m.Annotations, meta)
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Architecture != desc.Platform.Architecture || cfg.OS != "linux" || cfg.RootFS.Type != "layers" || len(cfg.RootFS.DiffIDs) != 1 ||
			cfg.Config.User != "65532:65532" || cfg.Config.Entrypoint[0] != "/tandemctl" || !cfg.Created.Equal(meta.Created) {
			t.Errorf("%s: config %+v", desc.Platform, cfg)
		}
		if cfg.Config.Labels["org.opencontainers.image.licenses"] != "Apache-2.0" {
			t.Errorf("%s: labels %v, want org.opencontainers.image.licenses Apache-2.0 (LICENSE)", desc.Platform, cfg.Config.Labels)
		}
	}
	if len(archs) != 2 || archs[0] != "linux/amd64" || archs[1] != "linux/arm64" {
		t.Errorf("platforms %v, want [linux/amd64 linux/arm64]", archs)
	}
}

func checkAnnotations(t *testing.T, what string, got map[string]string, meta Meta) {
	t.Helper()
	if got["org.opencontainers.image.licenses"] != "Apache-2.0" {
		t.Errorf("%s: annotations %v, want org.opencontainers.image.licenses Apache-2.0 (LICENSE)", what, got)
	}
	for key, want := range meta.Annotations() {
		if got[key] != want {
			t.Errorf("%s: annotation %s = %q, want %q", what, key, got[key], want)
		}
	}
}

// TestOpenArchiveRejectsOtherFiles: a file that is not a release's image
// layout is an error naming it.
func TestOpenArchiveRejectsOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "SHA256SUMS")
	if err := os.WriteFile(path, []byte("not a tar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenArchive(path); err == nil || !bytes.Contains([]byte(err.Error()), []byte(path)) {
		t.Errorf("error %v, want one naming %s", err, path)
	}
}
