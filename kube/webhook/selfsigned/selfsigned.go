// Package selfsigned makes the webhook's own CA and serving certificate,
// for a cluster without cert-manager, and says whether a stored pair still
// serves.
package selfsigned

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"
)

// Lifetime is how long a bootstrapped CA and serving certificate are
// valid; RenewBefore is when the webhook makes new ones at its start.
const (
	Lifetime    = 5 * 365 * 24 * time.Hour
	RenewBefore = 90 * 24 * time.Hour
)

// Bundle is what the bootstrap Secret holds, PEM-encoded.
type Bundle struct {
	CA, Cert, Key []byte
}

// ServiceNames are the DNS names the API server may dial a Service by.
func ServiceNames(service, namespace string) []string {
	return []string{
		service,
		service + "." + namespace,
		service + "." + namespace + ".svc",
		service + "." + namespace + ".svc.cluster.local",
	}
}

// NewBundle makes a CA and a serving certificate signed by it for names.
func NewBundle(names []string, now time.Time) (Bundle, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Bundle{}, fmt.Errorf("generate the CA key: %w", err)
	}
	ca := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "tandem-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(Lifetime),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return Bundle{}, fmt.Errorf("sign the CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Bundle{}, fmt.Errorf("generate the serving key: %w", err)
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(Lifetime),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return Bundle{}, fmt.Errorf("sign the serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Bundle{}, fmt.Errorf("encode the serving key: %w", err)
	}
	return Bundle{
		CA:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)) // crypto/rand does not fail
	return n
}

// Usable says whether b serves names, chains to its CA and lasts past
// RenewBefore; a Secret that holds such a bundle is kept.
func (b Bundle) Usable(names []string, now time.Time) error {
	if len(b.CA) == 0 || len(b.Cert) == 0 || len(b.Key) == 0 {
		return errors.New("empty")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b.CA) {
		return errors.New("ca.crt holds no certificate")
	}
	block, _ := pem.Decode(b.Cert)
	if block == nil {
		return errors.New("tls.crt holds no certificate")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("tls.crt: %w", err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: names[len(names)-2], CurrentTime: now.Add(RenewBefore)}); err != nil {
		return fmt.Errorf("tls.crt: %w", err)
	}
	if !slices.Equal(leaf.DNSNames, names) {
		return fmt.Errorf("tls.crt names %v, not %v", leaf.DNSNames, names)
	}
	return nil
}
