//go:build k8s

package k8s

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

// The faults a platform team meets with the webhook, made and undone: when
// the test ends, each puts the webhook back as it was and waits until it
// is so. Only tests that are not parallel may call them: with
// failurePolicy Fail, no pod of a labelled namespace is created meanwhile.

// webhookCtl runs kubectl in the webhook's namespace and fails the test on
// error.
func webhookCtl(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := contextFor(4 * time.Minute)
	defer cancel()
	out, err := kubectl(ctx, nil, append([]string{"-n", webhookNamespace}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// waitWebhookRollout waits until every replica of the webhook is ready
// (a test before may have deleted one).
func waitWebhookRollout(t *testing.T) {
	t.Helper()
	webhookCtl(t, "rollout", "status", "deployment/tandem-webhook", "--timeout=3m")
}

// otherCA is a CA certificate (PEM) that signed nothing the webhook serves.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "not tandem's CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// patchCABundle sets the caBundle of tandem's webhook to ca.
func patchCABundle(t *testing.T, ca []byte) {
	t.Helper()
	const path = "/webhooks/0/clientConfig/caBundle"
	was := webhookCtl(t, "get", "mutatingwebhookconfiguration", "tandem", "-o", "jsonpath={.webhooks[0].clientConfig.caBundle}")
	set := func(b64 string) {
		patch, _ := json.Marshal([]map[string]string{{"op": "replace", "path": path, "value": b64}})
		webhookCtl(t, "patch", "mutatingwebhookconfiguration", "tandem", "--type=json", "-p", string(patch))
	}
	set(base64.StdEncoding.EncodeToString(ca))
	t.Cleanup(func() { set(strings.TrimSpace(was)) })
}

// scaleWebhookToZero scales the webhook's Deployment to zero and waits
// until its pods are gone.
func scaleWebhookToZero(t *testing.T) {
	t.Helper()
	const selector = "app.kubernetes.io/name=tandem-webhook"
	replicas := webhookCtl(t, "get", "deployment", "tandem-webhook", "-o", "jsonpath={.spec.replicas}")
	webhookCtl(t, "scale", "deployment", "tandem-webhook", "--replicas=0")
	webhookCtl(t, "wait", "--for=delete", "pod", "-l", selector, "--timeout=2m")
	t.Cleanup(func() {
		webhookCtl(t, "scale", "deployment", "tandem-webhook", "--replicas="+strings.TrimSpace(replicas))
		waitWebhookRollout(t)
	})
}
