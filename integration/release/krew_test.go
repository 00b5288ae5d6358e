//go:build release

package release

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/krew/pkg/index"

	"github.com/tandem-sh/tandem/internal/release"
)

// TestKrewManifestNamesTheArchives: dist/tandem.krew.yaml names the
// release's version and, for linux/amd64 and linux/arm64, an archive of
// dist/ whose SHA-256 is the manifest's and SHA256SUMS's, holding at bin
// the platform's tandemctl, executable, and every file its files field
// moves.
func TestKrewManifestNamesTheArchives(t *testing.T) {
	dist := distDir(t)
	version := annotations(t, archive(t, dist, "tandem"))[release.AnnotationVersion]
	p := readKrewManifest(t, dist)
	if p.Name != "tandem" || p.Spec.Version != version {
		t.Errorf("manifest names plugin %q version %q, want tandem %s", p.Name, p.Spec.Version, version)
	}
	sums := readSHA256SUMS(t, dist)
	if got := sha256Hex(t, filepath.Join(dist, release.KrewManifestFile)); sums[release.KrewManifestFile] != got {
		t.Errorf("SHA256SUMS says %s: %q, the file's is %s", release.KrewManifestFile, sums[release.KrewManifestFile], got)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		pl := krewPlatform(t, p, arch)
		name := path.Base(pl.URI)
		if name != release.KrewArchiveName(version, arch) || !strings.HasPrefix(pl.URI, "https://") {
			t.Errorf("linux/%s: uri %q, want https://…/%s", arch, pl.URI, release.KrewArchiveName(version, arch))
		}
		got := sha256Hex(t, filepath.Join(dist, name))
		if pl.Sha256 != got || sums[name] != got {
			t.Errorf("%s: SHA-256 %s; the manifest says %s, SHA256SUMS %s", name, got, pl.Sha256, sums[name])
		}
		dir := t.TempDir()
		modes := unpackKrewArchive(t, filepath.Join(dist, name), dir)
		checkKrewBin(t, dist, arch, pl, dir, modes)
	}
}

// checkKrewBin: the archive unpacked in dir has at bin dist's tandemctl
// for arch, executable, and each file the manifest moves.
func checkKrewBin(t *testing.T, dist, arch string, pl index.Platform, dir string, modes map[string]int64) {
	t.Helper()
	for _, f := range pl.Files {
		if _, ok := modes[f.From]; !ok {
			t.Errorf("linux/%s: files moves %q, which the archive lacks (it has %v)", arch, f.From, modes)
		}
	}
	mode, ok := modes[pl.Bin]
	if !ok || mode&0o111 == 0 {
		t.Fatalf("linux/%s: bin %q is not an executable in the archive (it has %v)", arch, pl.Bin, modes)
	}
	got, err := os.ReadFile(filepath.Join(dir, pl.Bin))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dist, "tandemctl-linux-"+arch))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("linux/%s: the archive's %s (%d bytes) is not dist/tandemctl-linux-%s (%d bytes)", arch, pl.Bin, len(got), arch, len(want))
	}
}
