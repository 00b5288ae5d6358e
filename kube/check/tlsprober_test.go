package check

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
)

// tlsServer serves cert, answering /readyz with status.
func tlsServer(t *testing.T, cert tls.Certificate, status int) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte("not yet\n"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// The real prober keeps the certificate a server presents, even one that
// does not verify, and reads /readyz's answer.
func TestTLSProber(t *testing.T) {
	ca := newTestCA(t, "tandem-webhook-ca", testNow.Add(year))
	serving := ca.serving(t, testNow.Add(year), serverName)
	p := tlsProber{timeout: 5 * time.Second}

	got := p.Probe(context.Background(), tlsServer(t, serving, http.StatusOK), serverName)
	if got.err != nil || got.status != 200 || len(got.chain) != 1 || !got.chain[0].Equal(serving.Leaf) {
		t.Fatalf("probe: %+v; want 200 and the served certificate", got)
	}
	if problem, _ := certProblem(got.chain, ca.pem, serverName, testNow); problem != "" {
		t.Errorf("the served certificate: %s", problem)
	}
	other := newTestCA(t, "other", testNow.Add(year))
	if problem, failsNow := certProblem(got.chain, other.pem, serverName, testNow); !failsNow ||
		!strings.Contains(problem, "does not verify against the caBundle for "+serverName) {
		t.Errorf("against another CA: %q (fails now: %v)", problem, failsNow)
	}

	got = p.Probe(context.Background(), tlsServer(t, serving, http.StatusServiceUnavailable), serverName)
	if got.err != nil || got.status != 503 || got.body != "not yet" || len(got.chain) != 1 {
		t.Errorf("not ready: %+v; want 503, its body and the certificate", got)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	if got = p.Probe(context.Background(), closed, serverName); got.err == nil || got.chain != nil {
		t.Errorf("nothing listening: %+v; want an error and no certificate", got)
	}
}

// A url client config is checked at its host, against its caBundle.
func TestURLWebhook(t *testing.T) {
	ca := newTestCA(t, "tandem-webhook-ca", testNow.Add(year))
	addr := tlsServer(t, ca.serving(t, testNow.Add(year), "localhost"), http.StatusOK)
	_, port, _ := net.SplitHostPort(addr)
	cases := []struct {
		name     string
		url      string
		caBundle []byte
		want     []want
	}{
		{"healthy", "https://localhost:" + port + "/mutate", ca.pem, nil},
		{"caBundle of another CA", "https://localhost:" + port + "/mutate", newTestCA(t, "other", testNow.Add(year)).pem,
			[]want{{checkCertificate, Error, hookName, []string{"the certificate served by localhost:" + port + " does not verify", blocked, "set caBundle to the CA"}}}},
		{"down", "https://localhost:1/mutate", ca.pem,
			[]want{{checkEndpoint, Error, hookName, []string{"localhost:1 does not answer /readyz", blocked, "check the server behind https://localhost:1/mutate"}}}},
		{"not https", "http://localhost:" + port, ca.pem, []want{{checkConfig, Error, hookName, []string{"expected https://HOST[:PORT]/PATH"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.hook().ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr.To(tc.url), CABundle: tc.caBundle}
			c := checker{cluster: f.cluster, prober: tlsProber{timeout: 5 * time.Second}, now: testNow}
			r, err := c.run(context.Background(), Options{StuckAfter: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			expectFindings(t, r.Findings, tc.want...)
		})
	}
}
