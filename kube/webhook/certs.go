package webhook

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tandem-sh/tandem/kube/webhook/selfsigned"
)

// Names of the files in --cert-dir, as a kubernetes.io/tls Secret holds them.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// CertReloader serves the certificate in a directory and reads it again
// when a file changes (a rotated Secret volume, a renewal by cert-manager):
// no restart. It stats the two files at each handshake, which costs
// microseconds and sees changes fsnotify would miss on Secret volumes
// (their files are swapped by a symlink rename one directory up).
type CertReloader struct {
	dir string

	mu      sync.Mutex
	cert    *tls.Certificate
	version [2]fileVersion
	err     error

	placeholder     *tls.Certificate
	placeholderOnce sync.Once
}

// PlaceholderName is the subject of the certificate served while none is
// loaded. Self-signed and trusted by no caBundle, it fails every call of
// the API server as no certificate would, yet lets the kubelet's probes
// (which do not verify) read /healthz, so that a webhook waiting for its
// certificate is not restarted as dead, and /readyz's reasons.
const PlaceholderName = "tandem-webhook-placeholder"

type fileVersion struct {
	mod  time.Time
	size int64
}

// NewCertReloader reads dir/tls.crt and dir/tls.key once; they may appear
// later (a certificate being bootstrapped), until then Ready says so.
func NewCertReloader(dir string) *CertReloader {
	r := &CertReloader{dir: dir}
	r.reload()
	return r
}

// GetCertificate is tls.Config's hook: the loaded certificate, else the
// placeholder.
func (r *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.reload()
	r.mu.Lock()
	cert, err := r.cert, r.err
	r.mu.Unlock()
	if cert != nil {
		return cert, nil
	}
	r.placeholderOnce.Do(func() { r.placeholder = newPlaceholder() })
	if r.placeholder == nil {
		return nil, err
	}
	return r.placeholder, nil
}

// newPlaceholder makes the placeholder certificate; nil if it cannot (no
// randomness), when handshakes fail as they would without it.
func newPlaceholder() *tls.Certificate {
	b, err := selfsigned.NewBundle([]string{PlaceholderName}, time.Now())
	if err != nil {
		return nil
	}
	cert, err := tls.X509KeyPair(b.Cert, b.Key)
	if err != nil {
		return nil
	}
	return &cert
}

// Ready is nil once a certificate is loaded.
func (r *CertReloader) Ready() error {
	r.reload()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cert == nil {
		return r.err
	}
	return nil
}

// NotAfter is when the certificate being served expires (false while none
// is loaded), read again if its files changed.
func (r *CertReloader) NotAfter() (time.Time, bool) {
	r.reload()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cert == nil || r.cert.Leaf == nil {
		return time.Time{}, false
	}
	return r.cert.Leaf.NotAfter, true
}

// reload reads the pair again if either file changed. A pair that does not
// load (half-written during a rotation) keeps the previous one in service.
func (r *CertReloader) reload() {
	certPath, keyPath := filepath.Join(r.dir, CertFile), filepath.Join(r.dir, KeyFile)
	var now [2]fileVersion
	for i, p := range []string{certPath, keyPath} {
		fi, err := os.Stat(p)
		if err != nil {
			r.setErr(err) // os.Stat's error names the file
			return
		}
		now[i] = fileVersion{fi.ModTime(), fi.Size()}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cert != nil && now == r.version {
		return
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		r.err = fmt.Errorf("load %s and %s in %s: %w", CertFile, KeyFile, r.dir, err)
		return
	}
	r.cert, r.version, r.err = &cert, now, nil
}

func (r *CertReloader) setErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// WriteAtomic writes dir/name through a rename, so the CertReloader never
// reads half a file.
func WriteAtomic(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("certificate directory %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, name), err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}
