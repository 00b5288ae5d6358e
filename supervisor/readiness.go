package supervisor

import (
	"context"
	"time"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// readyProbeInterval: readiness gates the main's start, so probe often; a
// probe is one stat, dial or small request.
const readyProbeInterval = 100 * time.Millisecond

// readiness belongs to one run of CMD: its failure channel and goroutine end
// with that run, so nothing of it reaches the next one (--restart).
type readiness struct {
	failed <-chan error
	stop   func()
}

// startReadiness writes the ready file once every --ready-when holds. stop
// ends the probing and removes the file.
func (e *engine) startReadiness(ctx context.Context) readiness {
	sc := e.cfg.Sidecar
	if e.cfg.Mode != ModeSidecar || sc.ReadyFile == "" {
		return readiness{stop: func() {}}
	}
	ctx, cancel := context.WithCancel(ctx)
	failed := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		if _, err := probe.Wait(ctx, e.w.prober, sc.ReadyWhen, readyProbeInterval, 0, e.log); err != nil {
			return
		}
		err := e.w.files.Write(sc.ReadyFile, statusfile.File{Name: e.cfg.Name, Event: statusfile.EventReady, Reason: statusfile.ReasonReady})
		if err != nil {
			select {
			case failed <- err:
			case <-ctx.Done():
			}
			return
		}
		event(e.log.Info(), cmdline.EventReadyWritten).Str("path", sc.ReadyFile).Msg("ready file written")
	}()
	return readiness{failed: failed, stop: func() {
		cancel()
		<-finished
		if err := statusfile.Unlink(sc.ReadyFile); err != nil {
			event(e.log.Warn(), cmdline.EventRemoveFailed).Err(err).Str("path", sc.ReadyFile).Msg("cannot remove ready file")
		}
	}}
}
