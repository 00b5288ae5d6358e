package supervisor

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/signals"
)

// leftoverPollInterval is a safety net for group members that are not our
// descendants, whose exit the reaper would never report.
const leftoverPollInterval = 50 * time.Millisecond

// stopLeftovers runs after CMD exits: what is left of its process group gets
// the stop signal and SIGCONT (a stopped process must be able to act on it),
// --grace, then SIGKILL, so their handlers run before tandem exits (as
// PID 1, tandem's exit would SIGKILL them all at once).
func (e *engine) stopLeftovers(pgid int) {
	if !e.w.GroupAlive(pgid) {
		return
	}
	event(e.log.Info(), cmdline.EventLeftovers).Int("pgid", pgid).Str("signal", signals.Name(e.cfg.StopSignal)).
		Msg("CMD left processes in its group; stopping them")
	_ = e.w.Signal(pgid, e.cfg.StopSignal, true)
	_ = e.w.Signal(pgid, unix.SIGCONT, true)
	grace := e.w.After(e.cfg.Grace)
	for e.w.GroupAlive(pgid) {
		select {
		case <-e.w.reaped:
		case <-e.w.After(leftoverPollInterval):
		case <-grace:
			grace = nil
			event(e.log.Warn(), cmdline.EventLeftoversKilled).Int("pgid", pgid).Dur("grace_ms", e.cfg.Grace).
				Msg("leftover processes did not stop within grace; sending SIGKILL")
			_ = e.w.Signal(pgid, unix.SIGKILL, true)
		}
	}
}
