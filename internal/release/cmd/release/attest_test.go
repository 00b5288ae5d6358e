package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttestRefusesBadInput: each command names what it expected, and
// writes nothing.
func TestAttestRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	notGo := filepath.Join(dir, "tandem-linux-amd64")
	if err := os.WriteFile(notGo, []byte("not a Go binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "provenance.intoto.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"spdx", "-version", "v1.2.3", notGo}, "expected -version V -epoch SECONDS BINARY..."},
		{[]string{"spdx", "-version", "v1.2.3", "-epoch", "1", notGo}, "expected a Go binary"},
		{[]string{"provenance", "-version", "v1.2.3", "-revision", "abc", "-builder", "b", "-o", out, notGo}, "SHA(40 hex)"},
		{[]string{"provenance", "-version", "v1.2.3", "-revision", strings.Repeat("a", 40), "-builder", "b", "-o", out, "-image", notGo, notGo}, "expected a Go binary"},
		{[]string{"predicate", notGo}, "provenance statement"},
		{[]string{"sign", "-pub", filepath.Join(dir, "cosign.pub"), notGo}, "expected -key KEY -pub FILE FILE..."},
	}
	for _, c := range cases {
		err := run(context.Background(), c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("release %s: %v, want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the refused commands wrote %d files", len(entries)-1)
	}
}

// TestImageSubjectNeedsAnImageArchive: -image takes NAME-image.tar only.
func TestImageSubjectNeedsAnImageArchive(t *testing.T) {
	for _, path := range []string{"dist/tandem.tar", "dist/-image.tar"} {
		if _, err := imageSubject(path); err == nil || !strings.Contains(err.Error(), "expected NAME-image.tar") {
			t.Errorf("-image %s: %v", path, err)
		}
	}
}
