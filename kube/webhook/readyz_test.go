package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// fakeAPI answers Ready with whatever err holds; hang makes it wait for
// its context instead, as an API server that drops packets does.
type fakeAPI struct {
	mu   sync.Mutex
	err  error
	hang bool
}

var _ APIServer = (*fakeAPI)(nil)

func (f *fakeAPI) Address() string { return "https://10.244.77.1:6443" }

func (f *fakeAPI) Ready(ctx context.Context) error {
	f.mu.Lock()
	err, hang := f.err, f.hang
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	return err
}

func (f *fakeAPI) set(err error, hang bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err, f.hang = err, hang
}

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.String()
}

// events lists the events logged since the last call, and forgets them.
func events(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var got []map[string]any
	for _, raw := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		var line map[string]any
		if err := json.Unmarshal(raw, &line); err != nil {
			t.Fatalf("log line %q: %v", raw, err)
		}
		got = append(got, line)
	}
	buf.Reset()
	return got
}

// /readyz asks the API server at each call and names it while it does not
// answer; /healthz stays 200 all along; the outage is logged once as it
// starts and once as it ends.
func TestReadyzWaitsForTheAPIServer(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, dir, mustBundle(t))
	api := &fakeAPI{}
	var logs bytes.Buffer
	srv := &Server{Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(), API: api, Logger: zerolog.New(&logs)}
	h := srv.Routes()

	if code, body := get(t, h, "/readyz"); code != 200 || body != "ok\n" {
		t.Fatalf("readyz with the API server up: %d %q; want 200 ok", code, body)
	}
	if got := events(t, &logs); len(got) != 0 {
		t.Errorf("logged %v while all is well; want nothing", got)
	}
	refused := errors.New(`Get "https://10.244.77.1:6443/readyz": dial tcp 10.244.77.1:6443: connect: connection refused`)
	api.set(refused, false)
	want := "waiting for the API server at https://10.244.77.1:6443: " + refused.Error() + "\n"
	for probe := range 3 {
		if code, body := get(t, h, "/readyz"); code != 503 || body != want {
			t.Fatalf("readyz %d with the API server down: %d %q; want 503 %q", probe, code, body, want)
		}
		if code, _ := get(t, h, "/healthz"); code != 200 {
			t.Fatalf("healthz with the API server down: %d; want 200 (a restart does not bring it back)", code)
		}
	}
	got := events(t, &logs)
	if len(got) != 1 || got[0]["event"] != "api-server-unreachable" || got[0]["level"] != "warn" ||
		got[0]["api_server"] != api.Address() || got[0]["error"] != refused.Error() {
		t.Errorf("logged %v over three failed probes; want one api-server-unreachable warning with the error", got)
	}
	api.set(nil, false)
	for range 2 {
		if code, body := get(t, h, "/readyz"); code != 200 || body != "ok\n" {
			t.Fatalf("readyz with the API server back: %d %q", code, body)
		}
	}
	if got := events(t, &logs); len(got) != 1 || got[0]["event"] != "api-server-reachable" || got[0]["level"] != "info" {
		t.Errorf("logged %v as the API server came back; want one api-server-reachable info line", got)
	}
}

// An API server that does not answer at all costs /readyz APITimeout, not
// the prober's patience.
func TestReadyzBoundsTheAPIServersAnswer(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, dir, mustBundle(t))
	api := &fakeAPI{hang: true}
	srv := &Server{Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(), API: api, APITimeout: 20 * time.Millisecond, Logger: zerolog.Nop()}
	code, body := get(t, srv.Routes(), "/readyz")
	if want := "waiting for the API server at https://10.244.77.1:6443: " + context.DeadlineExceeded.Error() + "\n"; code != 503 || body != want {
		t.Errorf("readyz with a silent API server: %d %q; want 503 %q", code, body, want)
	}
}

// Each unmet condition is a line of its own: the API server first, whose
// absence is often why the certificate is missing too.
func TestReadyzListsEveryCondition(t *testing.T) {
	dir := t.TempDir()
	api := &fakeAPI{err: errors.New("connection refused")}
	srv := &Server{Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(), API: api, Logger: zerolog.Nop()}
	code, body := get(t, srv.Routes(), "/readyz")
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if code != 503 || len(lines) != 2 ||
		lines[0] != "waiting for the API server at https://10.244.77.1:6443: connection refused" ||
		lines[1] != "waiting for the serving certificate: stat "+dir+"/"+CertFile+": no such file or directory" {
		t.Errorf("readyz with neither: %d\n%s\nwant 503, the API server's line, then the certificate's", code, body)
	}
	srv.stopping.Store(true)
	if code, body := get(t, srv.Routes(), "/readyz"); code != 503 || body != "shutting down\n" {
		t.Errorf("readyz while stopping: %d %q", code, body)
	}
}
