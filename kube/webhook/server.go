package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Server is the HTTPS side: /mutate, /healthz, /readyz.
type Server struct {
	Listen string
	Certs  *CertReloader
	Mutate http.Handler
	// ShutdownDelay keeps serving after the stop signal while the
	// endpoints controller takes this pod out of the Service, so that the
	// API server's calls in flight to it are still answered.
	ShutdownDelay time.Duration
	Logger        zerolog.Logger
	// Listening, when set, receives the bound address (tests listen on :0).
	Listening chan<- net.Addr
	// CertCheckEvery is how often a missing certificate is reported again
	// (DefaultCertCheckEvery when zero).
	CertCheckEvery time.Duration
	// API, when set, is asked at each /readyz (bounded by APITimeout,
	// DefaultAPITimeout when zero): without it no pod can be admitted.
	API        APIServer
	APITimeout time.Duration
	// Bootstrap, when set, makes the certificate beside serving, retried
	// as BootstrapBackoff says (DefaultBootstrapBackoff when zero) until it
	// succeeds; /readyz waits for it.
	Bootstrap        Bootstrapper
	BootstrapBackoff Backoff

	stopping atomic.Bool
	api      apiState
	boot     bootState
}

// Routes is the mux, apart so tests can call it without TLS.
func (s *Server) Routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mutate", s.Mutate)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", s.readyz)
	return mux
}

// Run serves until ctx ends, then drains.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.Listen, err)
	}
	srv := &http.Server{
		Handler:           s.closeWhenStopping(s.Routes()),
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: s.Certs.GetCertificate},
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	srv.ErrorLog = s.serverErrorLog()
	if s.Listening != nil {
		s.Listening <- ln.Addr()
	}
	s.Logger.Info().Str("event", "listening").Str("address", ln.Addr().String()).Msg("serving /mutate")
	// Nothing of the server's logs after Run returns.
	defer s.background(ctx)()
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-served:
		return fmt.Errorf("serve on %s: %w", s.Listen, err)
	case <-ctx.Done():
	}
	s.stopping.Store(true)
	s.Logger.Info().Str("event", "stopping").Dur("delay", s.ShutdownDelay).Msg("draining")
	time.Sleep(s.ShutdownDelay)
	drain, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("drain: %w", err)
	}
	return nil
}

// background starts what runs beside serving (the certificate's watch, its
// bootstrap) and returns the func that stops them and waits for them.
func (s *Server) background(ctx context.Context) (stop func()) {
	every := s.CertCheckEvery
	if every <= 0 {
		every = DefaultCertCheckEvery
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.watchCertificates(ctx, every) })
	if s.Bootstrap != nil {
		wg.Go(func() { s.bootstrap(ctx) })
	}
	return func() { cancel(); wg.Wait() }
}
