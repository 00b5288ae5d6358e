package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedRegistry answers the version check at once and holds every
// manifest request until the test lets it go, counting how many are in
// flight at once and how many came for each image.
type gatedRegistry struct {
	host    string
	arrived chan string
	release chan struct{}

	mu         sync.Mutex
	inFlight   int
	maxFlight  int
	perImage   map[string]int
	blockUntil func(*http.Request) // nil: wait for release
}

func newGatedRegistry(t *testing.T) *gatedRegistry {
	t.Helper()
	g := &gatedRegistry{arrived: make(chan string, 64), release: make(chan struct{}), perImage: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(srv.Close)
	g.host = strings.TrimPrefix(srv.URL, "http://")
	return g
}

func (g *gatedRegistry) serve(w http.ResponseWriter, r *http.Request) {
	repo, _, isManifest := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v2/"), "/manifests/")
	if !isManifest {
		w.WriteHeader(http.StatusOK) // the version check
		return
	}
	g.mu.Lock()
	g.inFlight++
	g.maxFlight = max(g.maxFlight, g.inFlight)
	g.perImage[repo]++
	g.mu.Unlock()
	g.arrived <- repo
	if g.blockUntil != nil {
		g.blockUntil(r)
	} else {
		<-g.release
	}
	g.mu.Lock()
	g.inFlight--
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound) // not retried: one request per lookup
	fmt.Fprint(w, `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}`)
}

// waitArrival waits for the next manifest request; the bound only ends a
// test that would otherwise hang when lookups do not run concurrently.
func (g *gatedRegistry) waitArrival(t *testing.T, seen int) {
	t.Helper()
	select {
	case <-g.arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d lookups were in flight at once; want %d", seen, MaxLookups)
	}
}

// Lookups of different images run at once, never more than MaxLookups,
// and each image is read once however often it is named.
func TestResolveAllConcurrency(t *testing.T) {
	g := newGatedRegistry(t)
	r, err := New("linux/amd64", []string{g.host}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	const distinct = 3 * MaxLookups
	var images []string
	for i := range distinct {
		image := fmt.Sprintf("%s/app%d:1", g.host, i)
		images = append(images, image, image) // every image named twice
	}
	finished := make(chan struct{})
	go func() { r.ResolveAll(context.Background(), images); close(finished) }()
	// MaxLookups arrive while none has been answered: they run at once.
	for i := range MaxLookups {
		g.waitArrival(t, i)
	}
	// From then on one more may start only when one ends.
	for i := MaxLookups; i < distinct; i++ {
		g.release <- struct{}{}
		g.waitArrival(t, i)
	}
	for range MaxLookups {
		g.release <- struct{}{}
	}
	<-finished
	if g.maxFlight != MaxLookups {
		t.Errorf("%d lookups were in flight at once; want at most and at best %d", g.maxFlight, MaxLookups)
	}
	for repo, n := range g.perImage {
		if n != 1 {
			t.Errorf("%s was read %d times; want once", repo, n)
		}
	}
	// Resolve answers from the run's reads, and says what failed.
	before := len(g.perImage)
	if _, err := r.Resolve(context.Background(), images[0]); err == nil || !strings.Contains(err.Error(), "MANIFEST_UNKNOWN") {
		t.Errorf("Resolve after ResolveAll: %v; want the registry's MANIFEST_UNKNOWN", err)
	}
	if len(g.perImage) != before || g.perImage["app0"] != 1 {
		t.Errorf("Resolve after ResolveAll read the registry again")
	}
}

// A registry that does not answer ends the lookup at the timeout, and the
// error names the flag and its value.
func TestResolveTimeout(t *testing.T) {
	g := newGatedRegistry(t)
	g.blockUntil = func(r *http.Request) { <-r.Context().Done() }
	r, err := New("linux/amd64", []string{g.host}, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(context.Background(), g.host+"/silent:1")
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || !strings.Contains(err.Error(), "no answer within --lookup-timeout 50ms") {
		t.Fatalf("error %v; want a TimeoutError naming --lookup-timeout 50ms", err)
	}
	if !strings.Contains(err.Error(), g.host+"/silent:1") {
		t.Errorf("error %q does not name the image", err)
	}
	// The caller's own cancellation is not a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Resolve(ctx, g.host+"/other:1"); errors.As(err, &timeout) {
		t.Errorf("a cancelled run reported %v; want no timeout", err)
	}
}
