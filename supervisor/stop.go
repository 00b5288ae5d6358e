package supervisor

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// quitCallTimeout bounds each quit URL call: at least a second, at most five,
// otherwise --grace.
func quitCallTimeout(grace time.Duration) time.Duration {
	return min(max(grace, time.Second), 5*time.Second)
}

// callQuitURLs POSTs every URL at once and returns when all answered or
// timed out. A failure is logged, never fatal: the stop signal follows.
func (s *supervisor) callQuitURLs(ctx context.Context) {
	var wg sync.WaitGroup
	for _, raw := range s.cfg.QuitURLs {
		target, err := parseHTTPURL(raw) // validated already
		if err != nil {
			continue
		}
		wg.Go(func() {
			code, err := httpRequest(ctx, "POST", target, quitCallTimeout(s.cfg.Grace))
			switch {
			case err != nil:
				s.log.Warn().Str("url", raw).Err(err).Msg("quit URL call failed")
			case code < 200 || code > 299:
				s.log.Warn().Str("url", raw).Int("status", code).Msg("quit URL answered with an error status")
			default:
				s.log.Info().Str("url", raw).Int("status", code).Msg("quit URL called")
			}
		})
	}
	wg.Wait()
}

// stopChild is the requested stop: quit URLs (then --grace for CMD to leave
// by itself), the stop signal to the group, --grace, SIGKILL. It returns as
// soon as CMD has exited (childGone is closed).
func (s *supervisor) stopChild(ctx context.Context, c *child, childGone <-chan struct{}) {
	waitGone := func(d time.Duration) bool {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-childGone:
			return true
		case <-timer.C:
			return false
		}
	}
	if len(s.cfg.QuitURLs) > 0 {
		s.callQuitURLs(ctx)
		if waitGone(s.cfg.Grace) {
			return
		}
	}
	s.log.Info().Int("pid", c.pid).Str("signal", SignalName(s.cfg.StopSignal)).Msg("stop signal sent")
	if err := signalProcess(c.pid, s.cfg.StopSignal, true); err != nil {
		s.log.Error().Err(err).Int("pid", c.pid).Msg("cannot send stop signal")
	}
	if waitGone(s.cfg.Grace) {
		return
	}
	s.log.Warn().Int("pid", c.pid).Dur("grace", s.cfg.Grace).Msg("CMD did not stop within grace; sending SIGKILL")
	_ = signalProcess(c.pid, unix.SIGKILL, true)
}

// leftoverPollInterval is a safety net for group members that are not our
// descendants, whose exit the reaper would never report.
const leftoverPollInterval = 50 * time.Millisecond

// stopLeftovers runs after CMD exits: what is left of its process group gets
// the stop signal, --grace, then SIGKILL, so their handlers run before tandem
// exits (as PID 1, tandem's exit would SIGKILL them all at once).
func (s *supervisor) stopLeftovers(pgid int) {
	if !groupAlive(pgid) {
		return
	}
	s.log.Info().Int("pgid", pgid).Str("signal", SignalName(s.cfg.StopSignal)).
		Msg("CMD left processes in its group; stopping them")
	_ = signalProcess(pgid, s.cfg.StopSignal, true)
	// SIGTERM does not wake a stopped process; SIGCONT lets its handler run.
	_ = signalProcess(pgid, unix.SIGCONT, true)
	grace := time.NewTimer(s.cfg.Grace)
	defer grace.Stop()
	poll := time.NewTicker(leftoverPollInterval)
	defer poll.Stop()
	killed := false
	for groupAlive(pgid) {
		select {
		case <-s.reaper.Reaped():
		case <-poll.C:
		case <-grace.C:
			if !killed {
				s.log.Warn().Int("pgid", pgid).Dur("grace", s.cfg.Grace).Msg("leftover processes did not stop within grace; sending SIGKILL")
				_ = signalProcess(pgid, unix.SIGKILL, true)
				killed = true
			}
		}
	}
}
