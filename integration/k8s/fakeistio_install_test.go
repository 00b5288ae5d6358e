//go:build k8s

package k8s

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// A second mutating webhook, fakeistio (integration/k8s/fakeistio), that
// appends istio-proxy as Istio's injector does. Its configuration's name
// sorts after tandem's, so the API server calls it second, and calls
// tandem's again (reinvocationPolicy: IfNeeded) since it changed the pod.

const (
	fakeIstioNamespace = "fake-istio-system"
	fakeIstioImage     = "localhost/tandem-k8s/fake-istio-injector:test"
	// fakeIstioProxyImage is named as Istio's proxy is, so tandem's preset
	// knows it.
	fakeIstioProxyImage = "localhost/istio/proxyv2:test"
)

var (
	fakeIstioInstall = sync.OnceValue(installFakeIstio)
	// fakeIstioImages imports the injector's and the proxy's images, for
	// the injector and for a test that runs the proxy stand-in itself.
	fakeIstioImages = sync.OnceValue(importFakeIstioImages)
)

func installFakeIstio() error {
	if err := fakeIstioImages(); err != nil {
		return err
	}
	ca, crt, key, err := fakeIstioCerts("fake-istio." + fakeIstioNamespace + ".svc")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := kubectl(ctx, []byte(fakeIstioManifest(ca, crt, key)), "apply", "-f", "-"); err != nil {
		return fmt.Errorf("apply fakeistio: %v: %s", err, out)
	}
	if out, err := kubectl(ctx, nil, "-n", fakeIstioNamespace, "rollout", "status", "deployment/fake-istio", "--timeout=2m"); err != nil {
		return fmt.Errorf("fakeistio rollout: %v: %s", err, out)
	}
	return nil
}

func importFakeIstioImages() error {
	work, err := os.MkdirTemp("", "tandem-fake-istio-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(work, "fakeistio"), "./integration/k8s/fakeistio")
	build.Dir, build.Env = repoRoot, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build fakeistio: %v: %s", err, out)
	}
	for image, file := range map[string]string{
		fakeIstioImage:      "FROM scratch\nCOPY fakeistio /fakeistio\nENTRYPOINT [\"/fakeistio\"]\n",
		fakeIstioProxyImage: "FROM scratch\nCOPY fakeistio /usr/local/bin/pilot-agent\nUSER 1337\nENTRYPOINT [\"/usr/local/bin/pilot-agent\"]\n",
	} {
		if err := os.WriteFile(filepath.Join(work, "Containerfile"), []byte(file), 0o644); err != nil {
			return err
		}
		imp := exec.Command(filepath.Join(repoRoot, "integration", "k8s", "import-image.sh"), image, filepath.Join(work, "Containerfile"), work)
		if out, err := imp.CombinedOutput(); err != nil {
			return fmt.Errorf("import %s: %v: %s", image, err, out)
		}
	}
	return nil
}

// fakeIstioCerts are a CA and the serving certificate for dns, PEM.
func fakeIstioCerts(dns string) (ca, crt, key []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fake-istio CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dns}, DNSNames: []string{dns},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, caTmpl, &leafKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(leafKey)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

func fakeIstioManifest(ca, crt, key []byte) string {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: Secret
metadata: {name: fake-istio-certs, namespace: %[1]s}
type: kubernetes.io/tls
data: {tls.crt: %[2]s, tls.key: %[3]s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: fake-istio, namespace: %[1]s}
spec:
  replicas: 1
  selector: {matchLabels: {app: fake-istio}}
  template:
    metadata: {labels: {app: fake-istio}}
    spec:
      containers:
        - name: injector
          image: %[4]s
          imagePullPolicy: Never
          args: [inject, /certs, %[5]s]
          volumeMounts: [{name: certs, mountPath: /certs}]
          readinessProbe: {tcpSocket: {port: 8443}, periodSeconds: 1}
      volumes: [{name: certs, secret: {secretName: fake-istio-certs}}]
---
apiVersion: v1
kind: Service
metadata: {name: fake-istio, namespace: %[1]s}
spec:
  selector: {app: fake-istio}
  ports: [{port: 443, targetPort: 8443}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: zz-fake-istio-sidecar-injector}
webhooks:
  - name: sidecar-injector.fake-istio.test
    admissionReviewVersions: [v1]
    clientConfig:
      service: {name: fake-istio, namespace: %[1]s, path: /inject, port: 443}
      caBundle: %[6]s
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods], scope: Namespaced}]
    namespaceSelector: {matchLabels: {istio-injection: enabled}}
    failurePolicy: Fail
    sideEffects: None
    reinvocationPolicy: Never
`, fakeIstioNamespace, b64(crt), b64(key), fakeIstioImage, fakeIstioProxyImage, b64(ca))
}
