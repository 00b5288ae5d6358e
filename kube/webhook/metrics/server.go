package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"
)

// Server serves /metrics in plain HTTP (--metrics-listen): scrapers inside
// the cluster do not verify the webhook's self-made certificate, and the
// metrics hold nothing secret.
type Server struct {
	Listen  string
	Metrics *Metrics
	Logger  zerolog.Logger
	// Listening, when set, receives the bound address (tests listen on :0).
	Listening chan<- net.Addr
}

// Run binds the address, then serves until ctx ends. A port that cannot be
// bound is an error at once.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return fmt.Errorf("metrics: listen on %s: %w", s.Listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.Metrics.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	if s.Listening != nil {
		s.Listening <- ln.Addr()
	}
	s.Logger.Info().Str("event", "listening").Str("address", ln.Addr().String()).Msg("serving /metrics")
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("metrics: serve on %s: %w", s.Listen, err)
	case <-ctx.Done():
	}
	drain, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics: drain: %w", err)
	}
	return nil
}
