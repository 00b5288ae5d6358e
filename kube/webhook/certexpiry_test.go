package webhook

import (
	"bufio"
	"crypto/x509"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/kube/webhook/metrics"
	"github.com/tandem-sh/tandem/kube/webhook/selfsigned"
)

// The expiry gauge is the NotAfter of the certificate being served, and
// follows a rotation.
func TestCertificateExpiryGauge(t *testing.T) {
	dir := t.TempDir()
	certs := NewCertReloader(dir)
	m := metrics.New(certs)
	if _, ok := expiryGauge(t, m); ok {
		t.Error("an expiry before any certificate; want no sample")
	}
	a := mustBundle(t)
	b, err := selfsigned.NewBundle(names, time.Now().Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, bundle := range []selfsigned.Bundle{a, b} {
		writeBundle(t, dir, bundle)
		served, err := certs.GetCertificate(nil)
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(served.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := expiryGauge(t, m); !ok || got != leaf.NotAfter.Unix() {
			t.Errorf("expiry gauge %d (%v); want the served certificate's NotAfter %d", got, ok, leaf.NotAfter.Unix())
		}
	}
	if a, b := leafOf(t, a.Cert).NotAfter, leafOf(t, b.Cert).NotAfter; a.Equal(b) {
		t.Fatal("the two certificates expire together: the rotation proves nothing")
	}
}

// expiryGauge scrapes m for the certificate expiry.
func expiryGauge(t *testing.T, m *metrics.Metrics) (int64, bool) {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	lines := bufio.NewScanner(rec.Body)
	for lines.Scan() {
		value, found := strings.CutPrefix(lines.Text(), "tandem_webhook_certificate_expiry_timestamp_seconds ")
		if !found {
			continue
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("expiry %q: %v", value, err)
		}
		return int64(f), true
	}
	return 0, false
}
