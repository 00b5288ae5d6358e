package webhook

import (
	"context"
	"log"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// DefaultCertCheckEvery is how often a missing certificate is reported
// again while the webhook waits for it.
const DefaultCertCheckEvery = time.Minute

// watchCertificates warns, at start and every interval, while the serving
// certificate cannot be loaded (the file it lacks, or why it does not
// load), and says once when it is served: without it every call of the API
// server fails (on the placeholder, which no caBundle trusts) and the
// webhook is not ready, which the log must say louder than the TLS
// handshake errors do.
func (s *Server) watchCertificates(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	missing := false
	for {
		if err := s.Certs.Ready(); err != nil {
			missing = true
			s.Logger.Warn().Str("event", "certificate-missing").Err(err).Dur("retry", every).
				Msg("no serving certificate: the API server's calls fail and /readyz answers 503 until it loads")
		} else if missing {
			missing = false
			s.Logger.Info().Str("event", "certificate-loaded").Msg("serving certificate loaded")
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// serverErrorLog takes net/http's own log lines (a failed TLS handshake) as
// JSON lines like every other; while no certificate is loaded each
// handshake of the API server fails (it trusts no placeholder), which
// certificate-missing already says, so those go to debug.
func (s *Server) serverErrorLog() *log.Logger {
	return log.New(serverLogWriter{s}, "", 0)
}

type serverLogWriter struct{ s *Server }

func (w serverLogWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	level := zerolog.WarnLevel
	if strings.Contains(msg, "TLS handshake error") && w.s.Certs.Ready() != nil {
		level = zerolog.DebugLevel
	}
	w.s.Logger.WithLevel(level).Str("event", "http-error").Msg(msg)
	return len(p), nil
}
