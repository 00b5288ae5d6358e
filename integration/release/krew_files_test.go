//go:build release

package release

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"

	"github.com/tandem-sh/tandem/internal/release"
)

// readKrewManifest is dist/tandem.krew.yaml as krew's own type; a field
// krew does not know fails the test.
func readKrewManifest(t *testing.T, dist string) index.Plugin {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, release.KrewManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var p index.Plugin
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		t.Fatalf("%s: %v", release.KrewManifestFile, err)
	}
	return p
}

// krewPlatform is p's one platform whose selector is linux/arch.
func krewPlatform(t *testing.T, p index.Plugin, arch string) index.Platform {
	t.Helper()
	var found []index.Platform
	for _, pl := range p.Spec.Platforms {
		if pl.Selector != nil && pl.Selector.MatchLabels["os"] == "linux" && pl.Selector.MatchLabels["arch"] == arch {
			found = append(found, pl)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d platforms of the manifest select linux/%s, want 1", len(found), arch)
	}
	return found[0]
}

// readSHA256SUMS is dist/SHA256SUMS as file name to hex SHA-256.
func readSHA256SUMS(t *testing.T, dist string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		sum, name, ok := strings.Cut(lines.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: line %q, expected HASH  NAME", lines.Text())
		}
		sums[name] = sum
	}
	return sums
}

func sha256Hex(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// unpackKrewArchive unpacks the tar.gz at file into dir, as krew does,
// and returns each regular file's mode by name.
func unpackKrewArchive(t *testing.T, file, dir string) map[string]int64 {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	modes := map[string]int64{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return modes
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if hdr.Typeflag != tar.TypeReg || strings.Contains(hdr.Name, "/") {
			t.Fatalf("%s: entry %q (type %c): expected only files at the top", file, hdr.Name, hdr.Typeflag)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, hdr.Name), data, os.FileMode(hdr.Mode)); err != nil {
			t.Fatal(err)
		}
		modes[hdr.Name] = hdr.Mode
	}
}
