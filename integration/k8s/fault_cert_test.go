//go:build k8s

package k8s

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tandem-sh/tandem/kube/webhook/selfsigned"
)

// The certificate rotated under load, as a platform team rotates it: the
// caBundle trusts the old CA and the new, the new pair goes into the
// Secret and (renamed into place) into each replica's certificate
// directory, where the webhook reads it at the next handshake, then the
// caBundle trusts the new CA alone. Admissions run all along.

// afterRotation is how many admissions are answered under the new
// caBundle alone before the load stops.
const afterRotation = 200

// webhookUID is the webhook's user (examples/webhook/deployment.yaml):
// the files it reads must be its own.
const webhookUID = 65532

// servedName is the Service name the API server dials the webhook by.
const servedName = "tandem-webhook.tandem-system.svc"

// TestFaultCertRotation: no admission fails during the rotation, and each
// replica serves the new certificate and shows its expiry in its metrics.
// When the test ends, the original is rotated back the same way.
func TestFaultCertRotation(t *testing.T) {
	webhookInstalled(t)
	waitWebhookRollout(t)
	n := newNamespace(t)
	n.enableInjection()
	client := adminClient(t)
	orig := readWebhookBundle(t, client)
	// Made a month in the past: its NotAfter tells it from the original's.
	fresh, err := selfsigned.NewBundle(selfsigned.ServiceNames("tandem-webhook", webhookNamespace), time.Now().Add(-30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	pods := runningWebhookPods(t)
	t.Cleanup(func() { rotate(t, client, pods, fresh.CA, orig.Bundle, orig.caBundle) })

	b := &burst{client: client, ns: n.name, prefix: "rotation", dryRun: true}
	finish := startBurst(t, b, burstLeast)
	// Under load before the rotation begins, not only after.
	b.awaitAnswered(t, afterRotation/4)
	rotatedAt := time.Since(b.start)
	reload := rotate(t, client, pods, orig.caBundle, fresh, fresh.CA)
	rotatedEnd := time.Since(b.start)
	b.awaitAnswered(t, b.answered()+afterRotation)
	attempts := finish()

	c := count(attempts)
	c.failOthers(t)
	longest := longestFailing(attempts)
	if c.refused > 0 || c.uninjected > 0 {
		t.Errorf("during the rotation %d admissions failed (the longest run %s, the first: %v) and %d were not injected; want every one injected",
			c.refused, longest.Round(time.Millisecond), c.refusals, c.uninjected)
	}
	want := certNotAfter(t, fresh.Cert)
	for _, p := range pods {
		assertServes(t, p, fresh, want)
	}
	t.Logf("rotation from %s to %s since the load's start; each replica served the new certificate %s after its files were renamed into place; %s",
		rotatedAt.Round(time.Millisecond), rotatedEnd.Round(time.Millisecond), reload.Round(time.Millisecond), c)
	t.Logf("fault figures: certificate rotated under load: %d admissions (dry run), %d injected, %d failed (longest run %s), 0 uninjected; new expiry %s on %d replicas",
		c.attempted, c.injected, c.refused, longest.Round(time.Millisecond), want.UTC().Format(time.RFC3339), len(pods))
}

// bundle is what the webhook is served with and trusted by: the pair, its
// CA, and the configuration's caBundle (which may trust more).
type bundle struct {
	selfsigned.Bundle
	caBundle []byte
}

// readWebhookBundle reads the Secret and the caBundle as they are now.
func readWebhookBundle(t *testing.T, client kubernetes.Interface) bundle {
	t.Helper()
	s, err := client.CoreV1().Secrets(webhookNamespace).Get(t.Context(), "tandem-webhook-tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := base64.StdEncoding.DecodeString(webhookCtl(t, "get", "mutatingwebhookconfiguration", "tandem", "-o", "jsonpath={.webhooks[0].clientConfig.caBundle}"))
	if err != nil {
		t.Fatal(err)
	}
	return bundle{selfsigned.Bundle{CA: s.Data["ca.crt"], Cert: s.Data[corev1.TLSCertKey], Key: s.Data[corev1.TLSPrivateKeyKey]}, ca}
}

// rotate moves the webhook, trusted by the caBundle trusted, to the pair
// to, then to the caBundle final, in the order that keeps every admission
// trusted. It returns the longest a replica took to serve the new pair
// after its files were in place.
func rotate(t *testing.T, client kubernetes.Interface, pods []webhookPod, trusted []byte, to selfsigned.Bundle, final []byte) time.Duration {
	t.Helper()
	setCABundle(t, append(append([]byte{}, trusted...), to.CA...))
	// Not t.Context(): this runs in Cleanup too, where that has ended.
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	s, err := client.CoreV1().Secrets(webhookNamespace).Get(ctx, "tandem-webhook-tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data = map[string][]byte{"ca.crt": to.CA, corev1.TLSCertKey: to.Cert, corev1.TLSPrivateKeyKey: to.Key}
	if _, err := client.CoreV1().Secrets(webhookNamespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var slowest time.Duration
	for _, p := range pods {
		dir := certDir(t, p)
		placed := time.Now()
		writeOwned(t, dir, "tls.crt", to.Cert)
		writeOwned(t, dir, "tls.key", to.Key)
		awaitServed(t, p, to.Cert)
		slowest = max(slowest, time.Since(placed))
	}
	setCABundle(t, final)
	return slowest
}

// setCABundle sets the caBundle of tandem's webhook to ca.
func setCABundle(t *testing.T, ca []byte) {
	t.Helper()
	patch, _ := json.Marshal([]map[string]string{{"op": "replace", "path": "/webhooks/0/clientConfig/caBundle", "value": base64.StdEncoding.EncodeToString(ca)}})
	webhookCtl(t, "patch", "mutatingwebhookconfiguration", "tandem", "--type=json", "-p", string(patch))
}

// certDir is the replica's certificate directory (its emptyDir "certs")
// as the node sees it.
func certDir(t *testing.T, p webhookPod) string {
	t.Helper()
	uid := strings.TrimSpace(webhookCtl(t, "get", "pod", p.name, "-o", "jsonpath={.metadata.uid}"))
	state := os.Getenv("TANDEM_K8S_STATE")
	if state == "" {
		state = "/var/lib/tandem-k8s"
	}
	dir := filepath.Join(state, "kubelet", "pods", uid, "volumes", "kubernetes.io~empty-dir", "certs")
	if _, err := os.Stat(filepath.Join(dir, "tls.crt")); err != nil {
		t.Fatalf("webhook pod %s's certificate directory: %v", p.name, err)
	}
	return dir
}

// writeOwned writes dir/name as the webhook's user, through a rename: the
// webhook never reads half a file.
func writeOwned(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	tmp := filepath.Join(dir, "."+name+".rotating")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, webhookUID, webhookUID); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// servedCert is the certificate the replica presents, unverified.
func servedCert(p webhookPod) (*x509.Certificate, error) {
	d := &tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, ServerName: servedName}}
	ctx, cancel := contextFor(5 * time.Second)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", p.ip+":8443")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates[0], nil
}

// awaitServed waits, at most ten seconds, until the replica presents cert.
func awaitServed(t *testing.T, p webhookPod, cert []byte) {
	t.Helper()
	want, _ := pem.Decode(cert)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := servedCert(p)
		if err == nil && bytes.Equal(got.Raw, want.Bytes) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook pod %s does not serve the certificate written into its directory after 10s (%v)", p.name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func certNotAfter(t *testing.T, cert []byte) time.Time {
	t.Helper()
	block, _ := pem.Decode(cert)
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c.NotAfter
}

// assertServes: the replica's certificate verifies against b's CA for the
// Service's name, and its metrics show notAfter as the expiry.
func assertServes(t *testing.T, p webhookPod, b selfsigned.Bundle, notAfter time.Time) {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(b.CA)
	d := &tls.Dialer{Config: &tls.Config{RootCAs: roots, ServerName: servedName}}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", p.ip+":8443")
	if err != nil {
		t.Errorf("webhook pod %s: a TLS dial trusting the new CA alone: %v", p.name, err)
	} else {
		conn.Close()
	}
	f := scrapePod(t, p.name, p.ip)["tandem_webhook_certificate_expiry_timestamp_seconds"]
	if f == nil || len(f.GetMetric()) != 1 {
		t.Fatalf("webhook pod %s: no certificate expiry in its metrics: %v", p.name, f)
	}
	if got := int64(f.GetMetric()[0].GetGauge().GetValue()); got != notAfter.Unix() {
		t.Errorf("webhook pod %s: metrics show the certificate expiring at %s; want the new one's %s", p.name, time.Unix(got, 0).UTC(), notAfter.UTC())
	}
}
