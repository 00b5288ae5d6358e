package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The commands read their flags with one dash, as the Makefile writes
// them, and refuse what is missing or unknown with the error main prints
// (and exits 1 on), writing nothing.
func TestCommandLineRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "expected a command: images, krew, chart, publish, spdx, cyclonedx-license, provenance, predicate or sign"},
		{[]string{"bogus"}, `unknown command "bogus": expected images, krew`},
		{[]string{"chart", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"chart", "-epoch", "x"}, `invalid value "x" for flag -epoch`},
		{[]string{"chart", "-version", "v1.2.3"}, "chart: -version and -epoch are required"},
		{[]string{"images", "-dist", dir, "-version", "v1.2.3", "-epoch", "1"}, "images: -version, -revision and -epoch are required"},
		{[]string{"krew", "-dist", dir, "-version", "v1.2.3", "-url", "ftp://x", "-epoch", "1"}, `krew: -url "ftp://x": expected an http(s) URL`},
		{[]string{"krew", "-version", "v1.2.3", "-epoch", "1"}, "krew: -version, -url and -epoch are required"},
		{[]string{"publish", "-version", "v1.2.3"}, "publish: -version and -registry are required"},
		{[]string{"cyclonedx-license"}, "cyclonedx-license: expected SBOM..."},
		{[]string{"predicate"}, "predicate: expected the provenance statement's file"},
	} {
		err := run(context.Background(), c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("release %s: %v, want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused commands wrote %d files", len(entries))
	}
}

// -image is repeatable and takes a path with a comma whole.
func TestProvenanceImagesRepeat(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tandem-linux-amd64")
	if err := os.WriteFile(bin, []byte("not a Go binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"provenance", "-version", "v1.2.3", "-revision", strings.Repeat("a", 40), "-builder", "b",
		"-o", filepath.Join(dir, "out.json"), "-image", filepath.Join(dir, "a,b-image.tar"), "-image", bin, self}
	err = run(context.Background(), args)
	// The test binary is a Go binary; the first -image is read whole.
	if err == nil || !strings.Contains(err.Error(), "a,b-image.tar") {
		t.Errorf("release %s: %v; want the first -image, read whole, refused", strings.Join(args, " "), err)
	}
}
