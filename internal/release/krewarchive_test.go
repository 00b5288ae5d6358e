package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
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
