package webhook

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// Without certificates the webhook says so, naming the file, at start and
// again each interval, is not ready, serves a placeholder that only
// clients which do not verify accept (the kubelet's probes), and logs
// net/http's handshake errors as JSON lines; once the files appear it
// serves them, and says so once.
func TestServerWithoutCertificateWarnsUntilTheyAppear(t *testing.T) {
	dir := t.TempDir()
	logs, logWriter := io.Pipe()
	lines := make(chan map[string]any, 64)
	go func() {
		scanner := bufio.NewScanner(logs)
		for scanner.Scan() {
			var line map[string]any
			if json.Unmarshal(scanner.Bytes(), &line) != nil {
				line = map[string]any{"not-json": scanner.Text()}
			}
			lines <- line
		}
		close(lines)
	}()
	addr := make(chan net.Addr, 1)
	srv := &Server{Listen: "127.0.0.1:0", Certs: NewCertReloader(dir), Mutate: http.NotFoundHandler(),
		Logger: zerolog.New(logWriter).Level(zerolog.DebugLevel), Listening: addr, CertCheckEvery: 20 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	url := "https://" + (<-addr).String()

	next := func(event string) map[string]any {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case line := <-lines:
				if _, bad := line["not-json"]; bad {
					t.Fatalf("a log line that is not JSON: %v", line)
				}
				if line["event"] == event {
					return line
				}
			case <-deadline:
				t.Fatalf("no %s line", event)
			}
		}
	}
	for range 2 {
		line := next("certificate-missing")
		if line["level"] != "warn" || !strings.Contains(line["error"].(string), filepath.Join(dir, CertFile)) {
			t.Fatalf("certificate-missing line %v: want a warning naming %s", line, filepath.Join(dir, CertFile))
		}
	}
	ready := httptest.NewRecorder()
	srv.Routes().ServeHTTP(ready, httptest.NewRequest("GET", "/readyz", nil))
	if ready.Code != http.StatusServiceUnavailable || !strings.Contains(ready.Body.String(), CertFile) {
		t.Errorf("readyz without a certificate: %d %q; want 503 naming %s", ready.Code, ready.Body, CertFile)
	}
	// The kubelet's probes do not verify: they read the placeholder's
	// answers. A client that verifies, as the API server does, fails.
	probe, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}).Get(url + "/healthz")
	if err != nil {
		t.Fatalf("healthz over TLS without a certificate: %v; want the placeholder's answer", err)
	}
	probe.Body.Close()
	if probe.StatusCode != 200 || probe.TLS.PeerCertificates[0].Subject.CommonName != PlaceholderName {
		t.Errorf("healthz without a certificate: %d, served %q; want 200 over the placeholder", probe.StatusCode, probe.TLS.PeerCertificates[0].Subject.CommonName)
	}
	other := x509.NewCertPool()
	other.AppendCertsFromPEM(mustBundle(t).CA)
	if _, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: other, ServerName: names[2]}}}).Get(url + "/readyz"); err == nil {
		t.Fatal("a verifying client accepted the placeholder")
	}
	if line := next("http-error"); line["level"] != "debug" {
		t.Errorf("handshake error while the certificate is missing: %v; want it at debug", line)
	}

	bundle := mustBundle(t)
	writeBundle(t, dir, bundle)
	next("certificate-loaded")
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(bundle.CA)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: names[2]}}}
	resp, err := client.Get(url + "/readyz")
	if err != nil {
		t.Fatalf("readyz once the certificate is there: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("readyz: %d; want 200", resp.StatusCode)
	}
	go func() {
		for range lines { // the stop's own lines
		}
	}()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	logWriter.Close()
}
