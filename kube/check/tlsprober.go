package check

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"time"
)

// tlsProber asks over HTTPS, taking whatever certificate the server
// presents: certProblem judges it afterwards, as the API server would, so
// that a wrong one is reported rather than only refused.
type tlsProber struct{ timeout time.Duration }

var _ prober = tlsProber{}

func (p tlsProber) Probe(ctx context.Context, addr, serverName string) probe {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var result probe
	transport := &http.Transport{
		// No proxy: the API server dials the webhook itself.
		Proxy: nil, DisableKeepAlives: true,
		TLSClientConfig: &tls.Config{
			ServerName: serverName, MinVersion: tls.VersionTLS12,
			InsecureSkipVerify: true, //nolint:gosec // verified by certProblem, against the caBundle
			VerifyConnection: func(cs tls.ConnectionState) error {
				result.chain = cs.PeerCertificates
				return nil
			},
		},
	}
	defer transport.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/readyz", nil)
	if err != nil {
		result.err = err
		return result
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		result.err = err
		return result
	}
	defer resp.Body.Close()
	// The webhook's 503 names each condition it waits for, a line each.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	result.status, result.body = resp.StatusCode, strings.TrimSpace(string(body))
	return result
}
