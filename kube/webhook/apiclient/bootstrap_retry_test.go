package apiclient

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/webhook"
)

// lineWriter hands each log line to a channel.
type lineWriter struct {
	mu    sync.Mutex
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines <- string(bytes.TrimSpace(p))
	return len(p), nil
}

// A webhook started with its bootstrap Secret missing (a typo, or created
// later) serves, says so in /readyz and its log, and is ready once the
// Secret exists: no crash loop.
func TestServerBootstrapsOnceTheSecretExists(t *testing.T) {
	secret, cfg := bootstrapObjects()
	core, admission := fakeAPI(cfg)
	dir := t.TempDir()
	logs := &lineWriter{lines: make(chan string, 1024)}
	logger := zerolog.New(logs)
	b := &Bootstrap{Secrets: core, Webhooks: admission, Namespace: "tandem-system", Secret: "tandem-webhook-tls", Service: "tandem-webhook",
		WebhookConfig: "tandem", CertDir: dir, Logger: logger}
	addr := make(chan net.Addr, 1)
	srv := &webhook.Server{Listen: "127.0.0.1:0", Certs: webhook.NewCertReloader(dir), Mutate: http.NotFoundHandler(), Logger: logger,
		Listening: addr, Bootstrap: b, BootstrapBackoff: webhook.Backoff{First: 5 * time.Millisecond, Max: 20 * time.Millisecond}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	<-addr

	waitFor := func(event string) string {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case line := <-logs.lines:
				if strings.Contains(line, `"event":"`+event+`"`) {
					return line
				}
			case <-timeout:
				t.Fatalf("no %s line", event)
			}
		}
	}
	line := waitFor("bootstrap-retry")
	notFound := `bootstrap the serving certificate in secret tandem-system/tandem-webhook-tls: secrets \"tandem-webhook-tls\" not found`
	if !strings.Contains(line, notFound) {
		t.Errorf("bootstrap-retry line %s; want it to say %s", line, notFound)
	}
	rec := httptest.NewRecorder()
	srv.Routes().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	body, _ := io.ReadAll(rec.Body)
	if want := `waiting for the serving certificate: bootstrap: bootstrap the serving certificate in secret tandem-system/tandem-webhook-tls: secrets "tandem-webhook-tls" not found`; rec.Code != 503 || !strings.HasPrefix(string(body), want) {
		t.Errorf("readyz without the Secret: %d %q; want 503 %q", rec.Code, body, want)
	}

	if _, err := core.Secrets("tandem-system").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("bootstrap-done")
	rec = httptest.NewRecorder()
	srv.Routes().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != 200 {
		t.Errorf("readyz once bootstrapped: %d %s", rec.Code, rec.Body)
	}
	got, _ := core.Secrets("tandem-system").Get(ctx, "tandem-webhook-tls", metav1.GetOptions{})
	mwc, _ := admission.MutatingWebhookConfigurations().Get(ctx, "tandem", metav1.GetOptions{})
	if len(got.Data["ca.crt"]) == 0 || !bytes.Equal(mwc.Webhooks[0].ClientConfig.CABundle, got.Data["ca.crt"]) {
		t.Error("bootstrapped, yet the caBundle is not the Secret's CA")
	}
	go func() {
		for range logs.lines {
		}
	}()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
