package webhook

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Bootstrapper makes the serving certificate into the CertReloader's
// directory (kube.Bootstrap, through the API server).
type Bootstrapper interface {
	Run(ctx context.Context) error
}

// Backoff is how long to wait after each failed bootstrap: First, doubled
// after each failure up to Max.
type Backoff struct{ First, Max time.Duration }

// DefaultBootstrapBackoff retries soon after an API server restart, and at
// most twice a minute against a configuration that cannot work.
var DefaultBootstrapBackoff = Backoff{First: time.Second, Max: 30 * time.Second}

// next is the wait after one of d.
func (b Backoff) next(d time.Duration) time.Duration {
	if d <= 0 {
		return b.First
	}
	return min(2*d, b.Max)
}

// errBootstrapRunning is what /readyz says before the first attempt ends.
var errBootstrapRunning = errors.New("the first attempt is under way")

// bootState is the bootstrap as /readyz sees it.
type bootState struct {
	mu   sync.Mutex
	done bool
	// err is the last attempt's error; nil before the first ended.
	err error
}

// pending is nil once the bootstrap succeeded, else why it has not.
func (b *bootState) pending() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.done:
		return nil
	case b.err == nil:
		return errBootstrapRunning
	}
	return b.err
}

func (b *bootState) set(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.err = err == nil, err
}

// bootstrap runs the Bootstrapper until it succeeds or ctx ends, waiting
// as the Backoff says between attempts. It runs beside serving, so that a
// webhook started while the API server is away (or given a Secret that
// does not exist) stays up, says why in /readyz and the log, and is ready
// as soon as the bootstrap succeeds, instead of crash-looping.
func (s *Server) bootstrap(ctx context.Context) {
	backoff := s.BootstrapBackoff
	if backoff.First <= 0 || backoff.Max < backoff.First {
		backoff = DefaultBootstrapBackoff
	}
	var wait time.Duration
	for attempt := 1; ; attempt++ {
		err := s.Bootstrap.Run(ctx)
		if ctx.Err() != nil {
			return // stopping: not a failure of the bootstrap
		}
		s.boot.set(err)
		if err == nil {
			s.Logger.Info().Str("event", "bootstrap-done").Int("attempts", attempt).Msg("serving certificate bootstrapped")
			return
		}
		wait = backoff.next(wait)
		s.Logger.Warn().Str("event", "bootstrap-retry").Err(err).Int("attempt", attempt).Dur("retry_in", wait).
			Msg("cannot bootstrap the serving certificate: /readyz answers 503 until it succeeds")
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}
