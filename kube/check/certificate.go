package check

import (
	"crypto/x509"
	"errors"
	"fmt"
	"time"
)

// expiryMargin: a certificate that expires within it is a finding, in
// time for a renewal.
const expiryMargin = 30 * 24 * time.Hour

// certProblem says what is wrong with a served chain as the API server
// would see it: verified for serverName against caBundle (the system's
// roots when it is empty), and lasting expiryMargin more. failsNow: calls
// fail already.
func certProblem(chain []*x509.Certificate, caBundle []byte, serverName string, now time.Time) (problem string, failsNow bool) {
	opts := x509.VerifyOptions{DNSName: serverName, Intermediates: x509.NewCertPool(), CurrentTime: now}
	against := "the caBundle"
	if len(caBundle) == 0 {
		against = "the system's roots (caBundle is empty)"
	} else {
		opts.Roots = x509.NewCertPool()
		opts.Roots.AppendCertsFromPEM(caBundle)
	}
	for _, c := range chain[1:] {
		opts.Intermediates.AddCert(c)
	}
	verified, err := chain[0].Verify(opts)
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return fmt.Sprintf("is out of its validity: %v", err), true
	case err != nil:
		return fmt.Sprintf("does not verify against %s for %s: %v", against, serverName, err), true
	}
	soonest := verified[0][0]
	for _, c := range verified[0] {
		if c.NotAfter.Before(soonest.NotAfter) {
			soonest = c
		}
	}
	left := soonest.NotAfter.Sub(now)
	if left >= expiryMargin {
		return "", false
	}
	who := "expires"
	if soonest != chain[0] {
		who = fmt.Sprintf("chains to CA %q, which expires", soonest.Subject.CommonName)
	}
	return fmt.Sprintf("%s on %s, in %d days: then no call to the webhook succeeds", who,
		soonest.NotAfter.UTC().Format(time.DateOnly), int(left.Hours()/24)), false
}

// hasCertificate: the caBundle holds at least one PEM certificate.
func hasCertificate(caBundle []byte) bool {
	return x509.NewCertPool().AppendCertsFromPEM(caBundle)
}
