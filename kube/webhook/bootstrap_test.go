package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/kube/webhook/selfsigned"
)

// fakeBootstrap fails with each error of fails in turn, then writes bundle
// into dir; every attempt is sent on attempts. With holdSecond, the second
// attempt waits until it is closed, so a test can look at the server
// between the first failure and the next attempt however slow it runs.
type fakeBootstrap struct {
	dir        string
	bundle     selfsigned.Bundle
	fails      []error
	attempts   chan int
	holdSecond chan struct{}
	n          int
}

func (f *fakeBootstrap) Run(ctx context.Context) error {
	f.n++
	f.attempts <- f.n
	if f.n == 2 && f.holdSecond != nil {
		select {
		case <-f.holdSecond:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if f.n <= len(f.fails) {
		return f.fails[f.n-1]
	}
	if err := WriteAtomic(f.dir, CertFile, f.bundle.Cert); err != nil {
		return err
	}
	return WriteAtomic(f.dir, KeyFile, f.bundle.Key)
}

// A bootstrap that fails is retried, with a warning each time and a wait
// that doubles up to its bound, while the server listens and /readyz says
// why it waits; once it succeeds the certificate is served and /readyz
// says ok.
func TestBootstrapRetriesWhileServing(t *testing.T) {
	dir := t.TempDir()
	notFound := errors.New(`bootstrap the serving certificate in secret tandem-system/tandem-webhook-tls: secrets "tandem-webhook-tls" not found`)
	boot := &fakeBootstrap{dir: dir, bundle: mustBundle(t), fails: []error{notFound, notFound, notFound, notFound}, attempts: make(chan int, 16),
		holdSecond: make(chan struct{})}
	logs, logger := newLogStream(t)
	defer logs.Close()
	addr := make(chan net.Addr, 1)
	srv := &Server{Listen: "127.0.0.1:0", Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(), Logger: logger,
		Listening: addr, Bootstrap: boot, BootstrapBackoff: Backoff{First: 10 * time.Millisecond, Max: 40 * time.Millisecond}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	url := "https://" + (<-addr).String()

	for i, want := range []float64{10, 20, 40, 40} {
		line := logs.next("bootstrap-retry")
		if line["level"] != "warn" || line["error"] != notFound.Error() || line["attempt"] != float64(i+1) || line["retry_in"] != want {
			t.Errorf("retry %d: %v; want a warning with the error, attempt %d, retry_in %vms", i+1, line, i+1, want)
		}
		if i == 0 { // as the kubelet's probe reads it, over the placeholder
			resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}).Get(url + "/readyz")
			if err != nil {
				t.Fatalf("readyz over TLS while the bootstrap fails: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := "waiting for the serving certificate: bootstrap: " + notFound.Error() + "\n"; resp.StatusCode != 503 || string(body) != want {
				t.Errorf("readyz while the bootstrap fails: %d %q; want 503 %q", resp.StatusCode, body, want)
			}
			close(boot.holdSecond)
		}
	}
	if line := logs.next("bootstrap-done"); line["attempts"] != float64(5) {
		t.Errorf("bootstrap-done %v; want attempts 5", line)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(boot.bundle.CA)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: names[2]}}}
	resp, err := client.Get(url + "/readyz")
	if err != nil {
		t.Fatalf("readyz over TLS once bootstrapped: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("readyz once bootstrapped: %d; want 200", resp.StatusCode)
	}
	logs.drain()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if len(boot.attempts) != 5 {
		t.Errorf("%d attempts; want 5, none after the success", len(boot.attempts))
	}
}

// blockingBootstrap waits for its context, as a bootstrap does whose API
// server never answers.
type blockingBootstrap struct{ started chan struct{} }

func (b blockingBootstrap) Run(ctx context.Context) error {
	close(b.started)
	<-ctx.Done()
	return ctx.Err()
}

// The stop ends a bootstrap under way: Run returns, with no retry logged
// and /readyz saying the first attempt had not ended.
func TestBootstrapEndsWithTheServer(t *testing.T) {
	dir := t.TempDir()
	boot := blockingBootstrap{started: make(chan struct{})}
	logs, logger := newLogStream(t)
	defer logs.Close()
	addr := make(chan net.Addr, 1)
	srv := &Server{Listen: "127.0.0.1:0", Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(), Logger: logger,
		Listening: addr, Bootstrap: boot}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	<-addr
	<-boot.started
	code, body := get(t, srv.Routes(), "/readyz")
	if want := "waiting for the serving certificate: bootstrap: the first attempt is under way\n"; code != 503 || body != want {
		t.Errorf("readyz during the first attempt: %d %q; want 503 %q", code, body, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	logs.Close()
	for line := range logs.lines {
		if line["event"] == "bootstrap-retry" || line["event"] == "bootstrap-done" {
			t.Errorf("after the stop: %v", line)
		}
	}
}
