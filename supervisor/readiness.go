package supervisor

import (
	"context"
	"time"

	"github.com/rs/zerolog"

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

// readyFile is the sidecar's --ready-file and --ready-when, and its name
// for the file; none in the other modes.
type readyFile struct {
	path string
	when []probe.Condition
	name string
}

func newReadyFile(cfg Config) readyFile {
	if cfg.Mode != ModeSidecar {
		return readyFile{}
	}
	return readyFile{path: cfg.Sidecar.ReadyFile, when: cfg.Sidecar.ReadyWhen, name: cfg.Name}
}

// start writes the ready file, on w, once every --ready-when holds. stop
// ends the probing and removes the file.
func (rf readyFile) start(ctx context.Context, w world, log zerolog.Logger) readiness {
	if rf.path == "" {
		return readiness{stop: func() {}}
	}
	ctx, cancel := context.WithCancel(ctx)
	failed := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		if _, err := probe.Wait(ctx, w.prober, rf.when, readyProbeInterval, 0, log); err != nil {
			return
		}
		err := w.files.Write(rf.path, statusfile.File{Name: rf.name, Event: statusfile.EventReady, Reason: statusfile.ReasonReady})
		if err != nil {
			select {
			case failed <- err:
			case <-ctx.Done():
			}
			return
		}
		event(log.Info(), cmdline.EventReadyWritten).Str("path", rf.path).Msg("ready file written")
	}()
	return readiness{failed: failed, stop: func() {
		cancel()
		<-finished
		if err := statusfile.Unlink(rf.path); err != nil {
			event(log.Warn(), cmdline.EventRemoveFailed).Err(err).Str("path", rf.path).Msg("cannot remove ready file")
		}
	}}
}
