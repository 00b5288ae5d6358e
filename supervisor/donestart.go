package supervisor

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// startTimeout is the done watcher's start-timeout job
// (--main-start-timeout): a sidecar whose main never attached and never
// finished within it stops as if done, rather than run until the Job's
// deadline.
type startTimeout struct {
	clock   clock
	limit   time.Duration // 0: off
	started time.Time     // when the watcher was built
	log     zerolog.Logger
}

// expiry is when the timeout passes; nil when it is off or a main already
// attached.
func (s startTimeout) expiry(attached bool) <-chan time.Time {
	if s.limit <= 0 || attached {
		return nil
	}
	return s.clock.After(s.limit - s.clock.Now().Sub(s.started))
}

// expired is the timeout's event: done, unless a main attached meanwhile.
func (s startTimeout) expired(attached bool) (doneEvent, bool) {
	if attached {
		return doneEvent{}, false
	}
	event(s.log.Warn(), cmdline.EventMainStartTimeout).Dur("main_start_timeout_ms", s.limit).
		Msg("no main attached and nothing done within main-start-timeout; stopping as if done")
	return doneEvent{Source: sourceNoMain, SeenAt: s.clock.Now()}, true
}
