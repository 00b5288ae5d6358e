package release

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

var epoch = time.Unix(1764600000, 0).UTC()

// TestTarFilesFixesEverythingButContent: the layer's entries are sorted,
// owned by 0:0 with no names, stamped with the given time, with the
// directories above each file; two calls give the same bytes.
func TestTarFilesFixesEverythingButContent(t *testing.T) {
	files := []File{
		{Path: "/tandemctl", Mode: 0o755, Data: []byte("ctl")},
		{Path: "/etc/ssl/certs/ca.crt", Mode: 0o644, Data: []byte("certs")},
	}
	first, err := tarFiles(files, epoch)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tarFiles([]File{files[1], files[0]}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Error("the same files in another order gave another layer")
	}
	want := []string{"etc/ 755 dir", "etc/ssl/ 755 dir", "etc/ssl/certs/ 755 dir", "etc/ssl/certs/ca.crt 644 certs", "tandemctl 755 ctl"}
	var got []string
	tr := tar.NewReader(bytes.NewReader(first))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" || !hdr.ModTime.Equal(epoch) {
			t.Errorf("%s: owner %d:%d (%q:%q), time %s; want 0:0, no names, %s", hdr.Name, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname, hdr.ModTime, epoch)
		}
		data, _ := io.ReadAll(tr)
		if hdr.Typeflag == tar.TypeDir {
			data = []byte("dir")
		}
		got = append(got, fmt.Sprintf("%s %o %s", hdr.Name, hdr.Mode, data))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTarFilesRejectsBadPaths: a relative path, a file given twice, or a
// file where another needs a directory is an error naming the path.
func TestTarFilesRejectsBadPaths(t *testing.T) {
	for name, files := range map[string][]File{
		"relative": {{Path: "tandem", Mode: 0o755}},
		"root":     {{Path: "/", Mode: 0o755}},
		"twice":    {{Path: "/tandem", Mode: 0o755}, {Path: "/tandem", Mode: 0o644}},
		"file dir": {{Path: "/etc", Mode: 0o644}, {Path: "/etc/ca.crt", Mode: 0o644}},
	} {
		_, err := tarFiles(files, epoch)
		if err == nil || !strings.Contains(err.Error(), files[len(files)-1].Path) {
			t.Errorf("%s: error %v, want one naming %q", name, err, files[len(files)-1].Path)
		}
	}
}
