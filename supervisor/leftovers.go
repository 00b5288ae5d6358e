package supervisor

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
)

// After CMD exits, what is left of its process group gets the stop signal
// and SIGCONT (a stopped process must be able to act on it), --grace, then
// SIGKILL, so their handlers run before tandem exits (as PID 1, tandem's
// exit would SIGKILL them all at once). It is the last phase of the stop,
// and of the loop: supervise looks at the group after each event, and the
// run ends once it is empty.

// leftoverPollInterval is a safety net for group members that are not our
// descendants, whose exit the reaper would never report: the loop looks at
// the group this often.
const leftoverPollInterval = 50 * time.Millisecond

// leftovers: CMD exited and left processes in its group.
func (s *stopSequence) leftovers() []action {
	event(s.log.Info(), cmdline.EventLeftovers).Int("pgid", s.pid).Str("signal", signals.Name(s.signal)).
		Msg("CMD left processes in its group; stopping them")
	s.phase = stopLeftovers
	return []action{{kind: actSignal, signal: s.signal}, {kind: actSignal, signal: unix.SIGCONT}, {kind: actArm, after: s.grace}}
}

// leftoversTimedOut: the leftovers did not stop within --grace.
func (s *stopSequence) leftoversTimedOut() []action {
	event(s.log.Warn(), cmdline.EventLeftoversKilled).Int("pgid", s.pid).Dur("grace_ms", s.grace).
		Msg("leftover processes did not stop within grace; sending SIGKILL")
	s.phase = stopLeftoversKilled
	return []action{{kind: actSignal, signal: unix.SIGKILL}}
}
