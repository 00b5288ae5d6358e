//go:build release

package release

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"testing"

	"sigs.k8s.io/krew/pkg/index"

	"github.com/tandem-sh/tandem/internal/release"
)

// TestReleaseCarriesTheLicense: the repository's LICENSE (Apache-2.0) is in
// every krew archive, moved by the manifest; both images and their
// platforms' manifests say Apache-2.0 (org.opencontainers.image.licenses),
// as do the SPDX and CycloneDX SBOM of every binary, for the binary.
func TestReleaseCarriesTheLicense(t *testing.T) {
	dist := distDir(t)
	license, err := os.ReadFile(filepath.Join("..", "..", "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range images {
		if got := annotations(t, archive(t, dist, name))[release.AnnotationLicenses]; got != "Apache-2.0" {
			t.Errorf("%s image: %s %q, want Apache-2.0", name, release.AnnotationLicenses, got)
		}
	}
	p := readKrewManifest(t, dist)
	for _, arch := range []string{"amd64", "arm64"} {
		pl := krewPlatform(t, p, arch)
		dir := t.TempDir()
		unpackKrewArchive(t, filepath.Join(dist, path.Base(pl.URI)), dir)
		got, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
		if err != nil || !bytes.Equal(got, license) {
			t.Errorf("linux/%s: the krew archive's LICENSE (%d bytes, %v) is not the repository's", arch, len(got), err)
		}
		if !movesFile(pl.Files, "LICENSE") {
			t.Errorf("linux/%s: the manifest's files %v do not move LICENSE", arch, pl.Files)
		}
		for _, bin := range []string{"tandem", "tandemctl"} {
			checkSBOMLicenses(t, filepath.Join(dist, bin+"-linux-"+arch))
		}
	}
}

func movesFile(files []index.FileOperation, name string) bool {
	for _, f := range files {
		if f.From == name {
			return true
		}
	}
	return false
}

// checkSBOMLicenses: BIN.spdx.json's described package and BIN.cdx.json's
// metadata.component are licensed Apache-2.0.
func checkSBOMLicenses(t *testing.T, bin string) {
	t.Helper()
	var spdx struct {
		Packages []struct {
			LicenseDeclared  string `json:"licenseDeclared"`
			LicenseConcluded string `json:"licenseConcluded"`
		} `json:"packages"`
	}
	readJSON(t, bin+".spdx.json", &spdx)
	if len(spdx.Packages) == 0 || spdx.Packages[0].LicenseDeclared != "Apache-2.0" || spdx.Packages[0].LicenseConcluded != "Apache-2.0" {
		t.Errorf("%s.spdx.json: the binary's package %+v, want licenseDeclared and licenseConcluded Apache-2.0", filepath.Base(bin), spdx.Packages[:min(1, len(spdx.Packages))])
	}
	var cdx struct {
		Metadata struct {
			Component struct {
				Licenses []struct {
					License struct {
						ID string `json:"id"`
					} `json:"license"`
				} `json:"licenses"`
			} `json:"component"`
		} `json:"metadata"`
	}
	readJSON(t, bin+".cdx.json", &cdx)
	if l := cdx.Metadata.Component.Licenses; len(l) != 1 || l[0].License.ID != "Apache-2.0" {
		t.Errorf("%s.cdx.json: metadata.component.licenses %+v, want Apache-2.0", filepath.Base(bin), l)
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
