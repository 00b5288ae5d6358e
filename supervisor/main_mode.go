package supervisor

import (
	"context"
	"fmt"
	"sync"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// mainState is what only a main's engine keeps.
type mainState struct {
	// --needs: the needed sidecars, and their losses while the main is not
	// done (nil after, as in the other modes: a loss then is none).
	needs *needs
	lost  chan sidecarLoss
}

func newMainState(m MainConfig) mainState {
	return mainState{lost: make(chan sidecarLoss, len(m.Needs)+1)}
}

// runMain: wait for --wait-for, run CMD, and whatever the end, announce it
// (done file, quit URLs, peers) so sidecars stop.
func (e *engine) runMain(ctx context.Context) outcome {
	if path := e.cfg.Main.DoneFile; path != "" {
		// Proved before --wait-for and CMD: a main that could not write its
		// done file at the end would have run for nothing.
		if err := writableFile(cmdline.FlagDoneFile, path); err != nil {
			return e.tellSidecars(ctx, pathFailed(e.log, err))
		}
		// A restarted main (restartPolicy OnFailure) must not look finished.
		if err := statusfile.Unlink(path); err != nil {
			return failed(fmt.Errorf("remove stale done file: %w", err))
		}
		// Nor terminating: its sidecars would hold their own signal for it.
		if err := statusfile.Unlink(markPath(path)); err != nil {
			return failed(fmt.Errorf("remove stale termination mark: %w", err))
		}
		// Held from before --wait-for until the done file is written: a main
		// killed outright at any point is seen by its sidecars as lost.
		e.lifeline = holdLifeline(path, lifeline.KindDone, e.log)
	}
	if len(e.cfg.Main.Needs) > 0 {
		e.needs = newNeeds(e.cfg.Main.Needs, e.lost, e.log)
	}
	if len(e.cfg.Main.WaitFor) > 0 || e.needs != nil {
		if out, ended := e.waitBeforeStart(ctx); ended {
			return e.announce(ctx, out)
		}
	}
	c, err := e.start()
	if err != nil {
		return e.announce(ctx, startFailed(err))
	}
	return e.announce(ctx, endingOutcome(e.log, e.supervise(ctx, c), e.cfg.SuccessCodes))
}

type waitResult struct {
	pending []probe.Pending
	needs   []string // ready files still missing (--needs)
	err     error
}

// waitBeforeStart waits for --wait-for; ended is true when CMD must not start.
func (e *engine) waitBeforeStart(ctx context.Context) (out outcome, ended bool) {
	m := e.cfg.Main
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	event(e.log.Info(), cmdline.EventWaiting).Str("conditions", probe.Names(m.WaitFor)).Strs("needs", m.Needs).Dur("timeout_ms", m.WaitTimeout).
		Msg("waiting before starting CMD")
	var r waitResult
	over := make(chan struct{})
	go func() {
		defer close(over)
		r = waitAll(ctx, m, e.needs, e.w.prober, e.log)
	}()
	stop, ok := e.idle("wait-for", eventChans{waitOver: over})
	if !ok {
		cancel()
		<-over
		if stop.lost != nil {
			return lostWaiting(e.log, *stop.lost), true
		}
		return interrupted(stop.signal), true
	}
	if r.err == nil {
		return outcome{}, false
	}
	return waitTimedOut(timedOut(e.log, "wait-for", m.WaitTimeout, stillMissing(r))), true
}

// announce tells the sidecars that the main is done. A done file that cannot
// be written fails tandem (125): a sidecar waiting for it would never stop.
func (e *engine) announce(ctx context.Context, out outcome) outcome {
	e.lost = nil // the main is done: what the needed sidecars do now is no loss
	e.needs.release()
	m := e.cfg.Main
	if m.DoneFile != "" {
		f := statusfile.File{Name: e.cfg.Name, Event: statusfile.EventDone, ExitCode: out.code, Signal: out.signal, Reason: out.reason}
		if err := e.w.files.Write(m.DoneFile, f); err != nil {
			event(e.log.Error(), cmdline.EventWriteFailed).Err(err).Str("path", m.DoneFile).Int("cmd_exit_code", out.code).
				Msg("cannot write the done file")
			return failed(err)
		}
		event(e.log.Info(), cmdline.EventDoneWritten).Str("path", m.DoneFile).Int("exit_code", out.code).Str("reason", out.reason).
			Msg("done file written")
	}
	// Only now: a sidecar that sees the lifeline released finds the file.
	e.lifeline.Release()
	return e.tellSidecars(ctx, out)
}

// tellSidecars calls the quit URLs and signals the peers, if any.
func (e *engine) tellSidecars(ctx context.Context, out outcome) outcome {
	m := e.cfg.Main
	if !m.Peers.Enabled && len(m.QuitURLs) == 0 {
		return out
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		var wg sync.WaitGroup
		if m.Peers.Enabled {
			wg.Go(func() {
				if err := peers.Signal(ctx, e.w.peers, m.Peers, m.DoneSignal, e.log); err != nil {
					event(e.log.Warn(), cmdline.EventPeersFailed).Err(err).Msg("sidecar peers not signaled")
				}
			})
		}
		e.w.Quit(ctx, m.QuitURLs, quitCallTimeout(e.cfg.Grace), e.log)
		wg.Wait()
	}()
	// Looking for peers can take --peer-timeout; a pod being deleted meanwhile
	// must not wait for it.
	if _, ok := e.idle("announce", eventChans{waitOver: announced}); !ok {
		select {
		case <-announced: // it had finished as the signal came: nothing was cut short
		default:
			event(e.log.Warn(), cmdline.EventAnnounceCut).Msg("stopped announcing the main's end")
			cancel()
			<-announced
		}
	}
	return out
}
