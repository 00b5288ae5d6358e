package webhook

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// APIServer is the API server as /readyz sees it. Every admission reads
// the pod's namespace from it, so without it the webhook admits nothing;
// kube.APIReadiness asks the API server's own /readyz.
type APIServer interface {
	// Address names it in messages: https://10.96.0.1:443.
	Address() string
	// Ready is nil when it answers within ctx, else why not.
	Ready(ctx context.Context) error
}

// DefaultAPITimeout bounds the API server's answer to one /readyz: under
// the kubelet's default probe timeout (1s), so that the probe reads the
// reason rather than timing out.
const DefaultAPITimeout = 800 * time.Millisecond

// The leading words of /readyz's lines, one per unmet condition; tests and
// operators grep them.
const (
	waitAPI         = "waiting for the API server"
	waitCertificate = "waiting for the serving certificate"
)

// readyz answers 200 "ok" when the webhook can admit pods, else 503 with
// one line per unmet condition, each saying what it waits for and why.
// Liveness (/healthz) never looks at these: no restart brings the API
// server back.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.stopping.Load() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	// The API server first: its absence is often why the certificate is
	// missing too.
	var waits []string
	if s.API != nil {
		if err := s.apiReady(r.Context()); err != nil {
			waits = append(waits, fmt.Sprintf("%s at %s: %v", waitAPI, s.API.Address(), err))
		}
	}
	if err := s.certificateReady(); err != nil {
		waits = append(waits, waitCertificate+": "+err.Error())
	}
	if len(waits) > 0 {
		http.Error(w, strings.Join(waits, "\n"), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// certificateReady: bootstrapped (when the webhook bootstraps its own),
// then loaded.
func (s *Server) certificateReady() error {
	if s.Bootstrap != nil {
		if err := s.boot.pending(); err != nil {
			return fmt.Errorf("bootstrap: %w", err)
		}
	}
	return s.Certs.Ready()
}

// apiReady asks the API server now, bounded, and logs when its answer
// changes.
func (s *Server) apiReady(ctx context.Context) error {
	timeout := s.APITimeout
	if timeout <= 0 {
		timeout = DefaultAPITimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := s.API.Ready(ctx)
	s.api.observe(s, err)
	return err
}

// apiState remembers the API server's last answer, so that an outage is
// logged once as it starts and once as it ends, not at every probe.
type apiState struct {
	mu sync.Mutex
	// down: the last answer was an error (at start: none came yet).
	down bool
}

func (a *apiState) observe(s *Server, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case err != nil && !a.down:
		s.Logger.Warn().Str("event", "api-server-unreachable").Str("api_server", s.API.Address()).Err(err).
			Msg("the API server does not answer: no pod can be admitted and /readyz answers 503 until it does")
	case err == nil && a.down:
		s.Logger.Info().Str("event", "api-server-reachable").Str("api_server", s.API.Address()).Msg("the API server answers again")
	}
	a.down = err != nil
}
