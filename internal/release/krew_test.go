package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// TestKrewArchiveHoldsTheBinaryAndLicense: the archive is a gzipped tar of
// kubectl-tandem (0755) and LICENSE (0644), owned by 0:0, stamped with the
// commit's time, with no name or time in the gzip header; two calls give
// the same bytes.
func TestKrewArchiveHoldsTheBinaryAndLicense(t *testing.T) {
	data, files, err := WriteKrewArchive([]byte("ctl"), []byte("license"), epoch)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := WriteKrewArchive([]byte("ctl"), []byte("license"), epoch)
	if err != nil || !bytes.Equal(data, again) {
		t.Errorf("the same inputs gave another archive (err %v)", err)
	}
	if strings.Join(files, " ") != "kubectl-tandem LICENSE" {
		t.Errorf("files %q, want kubectl-tandem and LICENSE", files)
	}
	got := untarGzip(t, data)
	want := "LICENSE 644 license\nkubectl-tandem 755 ctl"
	if got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	_, files, err = WriteKrewArchive([]byte("ctl"), nil, epoch)
	if err != nil || strings.Join(files, " ") != "kubectl-tandem" {
		t.Errorf("without a license: files %q (err %v), want kubectl-tandem alone", files, err)
	}
}

// untarGzip lists a krew archive's entries as "NAME MODE DATA" lines,
// failing on a gzip header with a name or time, or an entry not owned by
// 0:0 at epoch.
func untarGzip(t *testing.T, data []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header has name %q, time %s; want neither", zr.Name, zr.ModTime)
	}
	var got []string
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Uid != 0 || hdr.Gid != 0 || !hdr.ModTime.Equal(epoch) {
			t.Errorf("%s: owner %d:%d, time %s; want 0:0, %s", hdr.Name, hdr.Uid, hdr.Gid, hdr.ModTime, epoch)
		}
		body, _ := io.ReadAll(tr)
		got = append(got, fmt.Sprintf("%s %o %s", hdr.Name, hdr.Mode, body))
	}
	return strings.Join(got, "\n")
}

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
