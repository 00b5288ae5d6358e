package release

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// testKrewArchives are the two platforms' archives of fake binaries.
func testKrewArchives(t *testing.T) ([]KrewArchive, map[string][]byte) {
	t.Helper()
	var archives []KrewArchive
	data := map[string][]byte{}
	for _, arch := range []string{"amd64", "arm64"} {
		d, files, err := WriteKrewArchive([]byte("tandemctl for "+arch), nil, epoch)
		if err != nil {
			t.Fatal(err)
		}
		data[arch] = d
		name := KrewArchiveName("v1.2.3", arch)
		archives = append(archives, KrewArchive{Arch: arch, URI: "https://example.com/v1.2.3/" + name, Sha256: Sha256Hex(d), Files: files})
	}
	return archives, data
}

// TestKrewManifestFields: the YAML written says krew's apiVersion and kind,
// the plugin's name, version, homepage and descriptions, and for each
// platform its selector, the archive's URL and SHA-256, its files and bin.
func TestKrewManifestFields(t *testing.T) {
	archives, data := testKrewArchives(t)
	out, err := MarshalKrewManifest(KrewManifest("v1.2.3", archives))
	if err != nil {
		t.Fatal(err)
	}
	var p index.Plugin
	if err := yaml.UnmarshalStrict(out, &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	head := fmt.Sprintf("%s %s %s %s %s", p.APIVersion, p.Kind, p.Name, p.Spec.Version, p.Spec.Homepage)
	if want := "krew.googlecontainertools.github.com/v1alpha2 Plugin tandem v1.2.3 https://github.com/tandem-sh/tandem"; head != want {
		t.Errorf("manifest says %q, want %q", head, want)
	}
	if p.Spec.ShortDescription == "" || strings.Contains(p.Spec.ShortDescription, "\n") || p.Spec.Description == "" {
		t.Errorf("shortDescription %q (one line expected), description %q", p.Spec.ShortDescription, p.Spec.Description)
	}
	if len(p.Spec.Platforms) != 2 {
		t.Fatalf("%d platforms, want amd64 and arm64:\n%s", len(p.Spec.Platforms), out)
	}
	for i, arch := range []string{"amd64", "arm64"} {
		pl := p.Spec.Platforms[i]
		sum := sha256.Sum256(data[arch])
		got := fmt.Sprintf("%v %s %s %s %v", pl.Selector.MatchLabels, pl.URI, pl.Sha256, pl.Bin, pl.Files)
		want := fmt.Sprintf("map[arch:%s os:linux] https://example.com/v1.2.3/kubectl-tandem_v1.2.3_linux_%s.tar.gz %x kubectl-tandem [{kubectl-tandem .}]", arch, arch, sum)
		if got != want {
			t.Errorf("platform %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
