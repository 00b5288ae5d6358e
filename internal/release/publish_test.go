package release

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// TestPublishPushesTheIndex: the registry serves the archive's index under
// the version's tag, with both platforms and the annotations.
// integration/release does the same against Debian's docker-registry.
func TestPublishPushesTheIndex(t *testing.T) {
	repo := testRegistry(t)
	digest, err := Publish(context.Background(), writeTestArchive(t), repo, testMeta.Version)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(repo.Tag(testMeta.Version))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := idx.Digest(); err != nil || got != digest {
		t.Fatalf("served index %s (%v), want %s", got, err, digest)
	}
	checkIndex(t, idx, testMeta)
	latest, err := remote.Index(repo.Tag("latest"))
	if err != nil {
		t.Fatalf("a final release is tagged latest too (examples/ name it): %v", err)
	}
	if got, _ := latest.Digest(); got != digest {
		t.Fatalf("latest serves %s, want the release's %s", got, digest)
	}
}

// TestPublishRefusesAnotherVersion: an archive of v1.2.3 is not pushed as
// v1.2.4; nothing is pushed.
func TestPublishRefusesAnotherVersion(t *testing.T) {
	repo := testRegistry(t)
	_, err := Publish(context.Background(), writeTestArchive(t), repo, "v1.2.4")
	if err == nil || !strings.Contains(err.Error(), `"v1.2.3", not "v1.2.4"`) {
		t.Fatalf("error %v, want one saying the archive holds v1.2.3", err)
	}
	if tags, err := remote.List(repo); err == nil && len(tags) > 0 {
		t.Errorf("tags %v pushed", tags)
	}
}

// testRegistry is a repository of an in-memory registry that lives as long
// as the test.
func testRegistry(t *testing.T) name.Repository {
	t.Helper()
	srv := httptest.NewServer(registry.New())
	t.Cleanup(srv.Close)
	repo, err := name.NewRepository(strings.TrimPrefix(srv.URL, "http://") + "/tandem-sh/tandemctl")
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// A final release is also latest; a pre-release never moves latest.
func TestTags(t *testing.T) {
	for version, want := range map[string]string{
		"v1.2.3":      "v1.2.3 latest",
		"v1.2.3-rc.1": "v1.2.3-rc.1",
		"v0.0.0-ci":   "v0.0.0-ci",
	} {
		if got := strings.Join(Tags(version), " "); got != want {
			t.Errorf("Tags(%q) = %q, want %q", version, got, want)
		}
	}
}
