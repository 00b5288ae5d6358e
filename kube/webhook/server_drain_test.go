package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// During the shutdown delay each answer closes its connection: a client
// that kept one alive (the API server does) dials again for its next call
// instead of being answered by a connection the end of the delay cuts.
func TestStoppingServerClosesEachConnectionAfterItsAnswer(t *testing.T) {
	dir := t.TempDir()
	b := mustBundle(t)
	writeBundle(t, dir, b)
	addr := make(chan net.Addr, 1)
	srv := &Server{Listen: "127.0.0.1:0", Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(),
		ShutdownDelay: 3 * time.Second, Logger: zerolog.Nop(), Listening: addr}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	url := "https://" + (<-addr).String()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(b.CA)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: names[2]}}}

	// get says the status, whether the answer closed the connection, and
	// whether it came on a connection used before.
	get := func(path string) (status int, closed, reused bool) {
		t.Helper()
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, url+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Close, reused
	}
	if _, closed, _ := get("/healthz"); closed {
		t.Fatal("a serving webhook closed the connection after its answer")
	}
	if _, _, reused := get("/healthz"); !reused {
		t.Fatal("a serving webhook's connection was not kept alive")
	}
	cancel()
	// /readyz says 503 once the stop is seen; the delay runs from there.
	for {
		status, closed, _ := get("/readyz")
		if status == http.StatusServiceUnavailable {
			if !closed {
				t.Error("the stopping webhook's /readyz answer kept the connection alive")
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status, closed, reused := get("/healthz"); status != http.StatusOK || !closed || reused {
		t.Errorf("during the delay: status %d, closed %v, on a reused connection %v; want 200 on a new connection, closed after it", status, closed, reused)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
