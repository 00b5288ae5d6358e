package registry

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/tandem-sh/tandem/kube/registry/registrytest"
)

// testRegistry serves go-containerregistry's in-memory registry on
// loopback and counts the requests it gets.
func testRegistry(t *testing.T) (host string, requests *atomic.Int64) {
	t.Helper()
	requests = &atomic.Int64{}
	handler := ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), requests
}

func image(t *testing.T, platform v1.Platform, entrypoint, cmd []string, stop string) v1.Image {
	t.Helper()
	return registrytest.Image(t, platform, entrypoint, cmd, stop)
}

func push(t *testing.T, ref string, write func(name.Reference) error) {
	t.Helper()
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(r); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
}
