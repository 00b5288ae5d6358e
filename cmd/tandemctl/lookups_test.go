package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/tandem-sh/tandem/kube/registry"
	"github.com/tandem-sh/tandem/kube/registry/registrytest"
)

// heldRegistry is an in-memory registry whose manifest GETs wait until
// hold says; it counts them per image.
type heldRegistry struct {
	host string
	hold func(r *http.Request)

	mu    sync.Mutex
	reads map[string]int
}

func newHeldRegistry(t *testing.T) *heldRegistry {
	t.Helper()
	h := &heldRegistry{reads: map[string]int{}}
	inner := ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if repo, _, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v2/"), "/manifests/"); ok && r.Method == http.MethodGet && h.hold != nil {
			h.mu.Lock()
			h.reads[repo]++
			h.mu.Unlock()
			h.hold(r)
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h.host = strings.TrimPrefix(srv.URL, "http://")
	return h
}

// push writes an image whose ENTRYPOINT is entrypoint to the registry.
func (h *heldRegistry) push(t *testing.T, repo string, entrypoint ...string) string {
	t.Helper()
	img := registrytest.Image(t, v1.Platform{OS: "linux", Architecture: "amd64"}, entrypoint, nil, "")
	ref, err := name.ParseReference(h.host + "/" + repo + ":1")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	return ref.String()
}

// jobOf is a Job whose two containers have no command: both need lookups.
func jobOf(name, mainImage, sidecarImage string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
spec:
  template:
    metadata:
      annotations:
        tandem.sh/sidecars: proxy
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: %s
      - name: proxy
        image: %s
`, name, mainImage, sidecarImage)
}

// Lookups run at once and finish in any order; the output and the report
// are those of the manifests' order, and each image is read once.
func TestInjectLookupsConcurrentDeterministic(t *testing.T) {
	reg := newHeldRegistry(t)
	const jobs = 4 // 8 images: every lookup in flight at once
	var stream []string
	var images []string
	for i := range jobs {
		main := reg.push(t, fmt.Sprintf("main%d", i), fmt.Sprintf("/main%d", i))
		side := reg.push(t, fmt.Sprintf("side%d", i), fmt.Sprintf("/side%d", i))
		images = append(images, main, side)
		stream = append(stream, jobOf(fmt.Sprintf("job%d", i), main, side))
	}
	stream = append(stream, jobOf("again", images[0], images[1])) // read once
	// Hold every manifest read until all of them are in flight, then let
	// them go last one first.
	var mu sync.Mutex
	var waiting []chan struct{}
	reg.hold = func(r *http.Request) {
		ch := make(chan struct{})
		mu.Lock()
		waiting = append(waiting, ch)
		if len(waiting) == len(images) {
			for i := len(waiting) - 1; i >= 0; i-- {
				close(waiting[i])
			}
		}
		mu.Unlock()
		select {
		case <-ch:
		case <-r.Context().Done(): // lookups one after another: a timeout
		}
	}
	out, stderr, code := run(t, strings.Join(stream, "---\n"), "inject", "--image", testImage, "--insecure-registry", reg.host)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var wantReport string
	for _, n := range []string{"job0", "job1", "job2", "job3", "again"} {
		wantReport += "job/" + n + ": injected (mains: main; sidecars: proxy)\n"
	}
	if stderr != wantReport {
		t.Errorf("report\n%s\nwant\n%s", stderr, wantReport)
	}
	docs := strings.Split(out, "---\n")
	for i := range jobs {
		for _, want := range []string{fmt.Sprintf("name: job%d\n", i), fmt.Sprintf("- /main%d\n", i), fmt.Sprintf("- /side%d\n", i)} {
			if !strings.Contains(docs[i], want) {
				t.Errorf("document %d lacks %q:\n%s", i, want, docs[i])
			}
		}
	}
	for repo, n := range reg.reads {
		if n != 1 {
			t.Errorf("%s read %d times; want once", repo, n)
		}
	}
}

// A registry that never answers: every lookup ends at --lookup-timeout,
// every container is reported with the limit, and the run exits 1.
func TestInjectLookupTimeout(t *testing.T) {
	reg := newHeldRegistry(t)
	reg.hold = func(r *http.Request) { <-r.Context().Done() }
	stated := strings.Replace(plainJob, "tandem.sh/sidecars: db-proxy\n", "tandem.sh/sidecars: db-proxy\n        tandem.sh/stop-signal.db-proxy: TERM\n", 1)
	src := jobOf("silent", reg.host+"/main:1", reg.host+"/proxy:1") + "---\n" + stated
	t.Setenv("TANDEMCTL_LOOKUP_TIMEOUT", "200ms")
	out, stderr, code := run(t, src, "inject", "--image", testImage, "--insecure-registry", reg.host)
	if code != 1 {
		t.Errorf("exit %d; want 1", code)
	}
	for _, want := range []string{
		"job/silent: not injected (2 problems):\n",
		`  - container "main" (image "` + reg.host + `/main:1"): read the image config: read ` + reg.host + "/main:1 from its registry: no answer within --lookup-timeout 200ms",
		`  - container "proxy" (image "` + reg.host + `/proxy:1"): read the image config: read ` + reg.host + "/proxy:1 from its registry: no answer within --lookup-timeout 200ms",
		"job/export: injected",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("report:\n%s\nlacks %q", stderr, want)
		}
	}
	if !strings.HasPrefix(out, jobOf("silent", reg.host+"/main:1", reg.host+"/proxy:1")+"---\n") || !strings.Contains(out, "tandem.sh/injected") {
		t.Errorf("want the silent Job unchanged and the other injected:\n%s", out)
	}
	if registry.MaxLookups != 8 {
		t.Errorf("registry.MaxLookups %d; docs/inject.md says 8", registry.MaxLookups)
	}
}
