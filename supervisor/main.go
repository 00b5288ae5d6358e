package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// runMain: wait for --wait-for, run CMD, and whatever the end, announce it
// (done file, quit URLs, peers) so sidecars stop.
func (s *supervisor) runMain(ctx context.Context) outcome {
	doneFile := ""
	if len(s.cfg.DoneFiles) == 1 {
		doneFile = s.cfg.DoneFiles[0]
		// A restarted main (restartPolicy OnFailure) must not look finished.
		if err := os.Remove(doneFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("remove stale done file: %w", err)
			return outcome{code: ExitInternal, reason: ReasonError, err: err}
		}
	}
	if len(s.cfg.WaitFor) > 0 {
		if out, ended := s.waitBeforeStart(ctx); ended {
			return s.announce(ctx, out, StatusFile{ExitCode: out.code, Signal: out.signal, Reason: out.reason})
		}
	}
	c, err := s.start()
	if err != nil {
		out := outcome{code: ExitCodeOf(err), reason: ReasonStartFailed, err: err}
		return s.announce(ctx, out, StatusFile{ExitCode: out.code, Reason: ReasonStartFailed})
	}
	out := s.endingOutcome(s.supervise(ctx, c))
	return s.announce(ctx, out, StatusFile{ExitCode: out.code, Signal: out.signal, Reason: out.reason})
}

// waitBeforeStart waits for --wait-for; ended is true when CMD must not start.
func (s *supervisor) waitBeforeStart(ctx context.Context) (out outcome, ended bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		pending []Condition
		err     error
	}
	results := make(chan result, 1)
	go func() {
		pending, err := waitConditions(ctx, s.prober, s.cfg.WaitFor, s.cfg.WaitInterval, s.cfg.WaitTimeout, s.log)
		results <- result{pending, err}
	}()
	s.log.Info().Str("conditions", conditionNames(s.cfg.WaitFor)).Dur("timeout", s.cfg.WaitTimeout).Msg("waiting before starting CMD")
	for {
		select {
		case r := <-results:
			if r.err == nil {
				return outcome{}, false
			}
			err := &CodedError{Code: ExitTimeout, Err: fmt.Errorf("wait-for timed out after %s; still not holding: %s",
				s.cfg.WaitTimeout, conditionNames(r.pending))}
			return outcome{code: ExitTimeout, reason: ReasonWaitTimeout, err: err}, true
		case received := <-s.signals:
			sig := received.(unix.Signal)
			if !endsTandem(sig) {
				s.log.Debug().Str("signal", SignalName(sig)).Msg("signal ignored: CMD not started yet")
				continue
			}
			cancel()
			<-results
			s.log.Warn().Str("signal", SignalName(sig)).Msg("interrupted while waiting; CMD not started")
			return outcome{code: exitSignalBase + int(sig), reason: ReasonInterrupted, signal: SignalName(sig)}, true
		}
	}
}

// announce tells the sidecars that the main is done. A done file that cannot
// be written fails tandem (125): a sidecar waiting for it would never stop.
func (s *supervisor) announce(ctx context.Context, out outcome, status StatusFile) outcome {
	status.Name, status.Event = s.cfg.Name, EventDone
	if len(s.cfg.DoneFiles) == 1 {
		if err := WriteStatusFile(s.cfg.DoneFiles[0], status); err != nil {
			s.log.Error().Err(err).Int("cmd_exit_code", out.code).Msg("cannot write the done file")
			return outcome{code: ExitInternal, reason: ReasonError, err: err}
		}
		s.log.Info().Str("path", s.cfg.DoneFiles[0]).Int("exit_code", status.ExitCode).Str("reason", status.Reason).Msg("done file written")
	}
	started := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		var peers sync.WaitGroup
		if s.cfg.Peers.Enabled {
			peers.Go(func() {
				if err := signalPeers(ctx, s.peers, s.cfg.Peers, s.cfg.DoneSignal, s.log); err != nil {
					s.log.Warn().Err(err).Msg("sidecar peers not signaled")
				}
			})
		}
		s.callQuitURLs(ctx)
		peers.Wait()
	}()
	// Looking for peers can take --peer-timeout; a pod being deleted meanwhile
	// must not wait for it.
	for {
		select {
		case <-announced:
			s.log.Debug().Dur("took", time.Since(started)).Msg("main's end announced")
			return out
		case received := <-s.signals:
			if sig := received.(unix.Signal); endsTandem(sig) {
				s.log.Warn().Str("signal", SignalName(sig)).Msg("stopped announcing the main's end")
				cancel()
				<-announced
				return out
			}
		}
	}
}
