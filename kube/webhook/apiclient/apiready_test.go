package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// APIReadiness asks /readyz with the config's credentials and says why
// the API server is not ready: its answer, or the request's error.
func TestAPIReadiness(t *testing.T) {
	status := http.StatusOK
	var auth string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		auth = r.Header.Get("Authorization")
		w.WriteHeader(status)
		_, _ = w.Write([]byte("[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n"))
	}))
	ready, err := NewAPIReadiness(&rest.Config{Host: api.URL, BearerToken: "t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	if ready.Address() != api.URL {
		t.Errorf("address %q; want %q", ready.Address(), api.URL)
	}
	ctx := context.Background()
	if err := ready.Ready(ctx); err != nil || auth != "Bearer t0ken" {
		t.Fatalf("ready: %v, Authorization %q; want nil, with the config's token", err, auth)
	}
	status = http.StatusInternalServerError
	want := "GET " + api.URL + "/readyz: 500 Internal Server Error: [+]ping ok [-]etcd failed: reason withheld readyz check failed"
	if err := ready.Ready(ctx); err == nil || err.Error() != want {
		t.Errorf("not ready: %v; want %q", err, want)
	}
	api.Close()
	want = `Get "` + api.URL + `/readyz": dial tcp ` + strings.TrimPrefix(api.URL, "http://") + ": connect: connection refused"
	if err := ready.Ready(ctx); err == nil || err.Error() != want {
		t.Errorf("gone: %v; want %q", err, want)
	}
}

// A host without a scheme is read as client-go reads it: https when the
// config has TLS material.
func TestAPIReadinessAddress(t *testing.T) {
	ready, err := NewAPIReadiness(&rest.Config{Host: "10.96.0.1:443", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	if ready.Address() != "https://10.96.0.1:443" {
		t.Errorf("address %q; want https://10.96.0.1:443", ready.Address())
	}
}
