package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/tandem-sh/tandem/kube/webhook/selfsigned"
)

var names = selfsigned.ServiceNames("tandem-webhook", "tandem-system")

func writeBundle(t *testing.T, dir string, b selfsigned.Bundle) {
	t.Helper()
	if err := WriteAtomic(dir, CertFile, b.Cert); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(dir, KeyFile, b.Key); err != nil {
		t.Fatal(err)
	}
}

func mustBundle(t *testing.T) selfsigned.Bundle {
	t.Helper()
	b, err := selfsigned.NewBundle(names, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func leafOf(t *testing.T, pemBytes []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(pemBytes)
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCertReload(t *testing.T) {
	dir := t.TempDir()
	r := NewCertReloader(dir)
	if r.Ready() == nil {
		t.Fatal("ready without a certificate")
	}
	a, b := mustBundle(t), mustBundle(t)
	writeBundle(t, dir, a)
	if err := r.Ready(); err != nil {
		t.Fatalf("not ready once the files exist: %v", err)
	}
	serialOf := func() string {
		c, err := r.GetCertificate(nil)
		if err != nil {
			t.Fatal(err)
		}
		leaf, _ := x509.ParseCertificate(c.Certificate[0])
		return leaf.SerialNumber.String()
	}
	if serialOf() != leafOf(t, a.Cert).SerialNumber.String() {
		t.Fatal("serves another certificate than the one in the directory")
	}
	writeBundle(t, dir, b)
	if serialOf() != leafOf(t, b.Cert).SerialNumber.String() {
		t.Error("after a rotation, still serves the old certificate")
	}
	// A half-written pair (a key that is not the certificate's) keeps the
	// last good one in service.
	if err := WriteAtomic(dir, KeyFile, a.Key); err != nil {
		t.Fatal(err)
	}
	if serialOf() != leafOf(t, b.Cert).SerialNumber.String() {
		t.Error("a mismatched pair replaced the certificate in service")
	}
}

// Through a real TLS listener: a new connection after the rotation sees
// the new certificate, with no restart.
func TestServerServesRotatedCertificate(t *testing.T) {
	dir := t.TempDir()
	a, b := mustBundle(t), mustBundle(t)
	writeBundle(t, dir, a)
	addr := make(chan net.Addr, 1)
	srv := &Server{Listen: "127.0.0.1:0", Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(),
		Logger: zerolog.Nop(), Listening: addr}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	url := "https://" + (<-addr).String()

	get := func(ca []byte, path string) (*http.Response, error) {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(ca)
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: names[2]}}}
		return c.Get(url + path)
	}
	for _, tt := range []struct {
		bundle selfsigned.Bundle
		rotate bool
	}{{a, false}, {b, true}} {
		if tt.rotate {
			writeBundle(t, dir, tt.bundle)
		}
		resp, err := get(tt.bundle.CA, "/readyz")
		if err != nil {
			t.Fatalf("readyz with the current CA: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("readyz: %d %s", resp.StatusCode, body)
		}
	}
	if _, err := get(a.CA, "/healthz"); err == nil {
		t.Error("the old CA still verifies after the rotation")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
