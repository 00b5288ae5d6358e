package supervisor

import (
	"context"

	"github.com/tandem-sh/tandem/supervisor/donewatch"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// doneEvent says the main work is done, and how tandem learned it.
type doneEvent = donewatch.Event

// Done sources, in the done-seen log line: the watcher's, and the done
// signal, which the engine takes itself.
const (
	sourceDoneFile   = donewatch.SourceDoneFile
	sourceDoneSignal = "done-signal"
)

// doneSource is the sidecar's done condition: check says whether it holds
// now; run sends one event when it comes to hold, then returns.
type doneSource interface {
	check() (doneEvent, bool)
	run(ctx context.Context, out chan<- doneEvent)
}

// watcherSource is the done watcher as the engine's done source.
type watcherSource struct{ *donewatch.Watcher }

var _ doneSource = watcherSource{}

func (s watcherSource) check() (doneEvent, bool)                      { return s.Check() }
func (s watcherSource) run(ctx context.Context, out chan<- doneEvent) { s.Run(ctx, out) }

// newDoneWatcher builds the sidecar's done watcher from cfg, on w; under
// --stop-when deletion it looks only once the pod is being deleted (d's
// gate).
func newDoneWatcher(cfg Config, w world, d *deletion) (doneSource, error) {
	dw, err := donewatch.New(doneWatchConfig(cfg, w))
	if err != nil {
		return nil, err
	}
	if cfg.Sidecar.StopWhen == StopWhenDeletion {
		return d.gate(watcherSource{dw}), nil
	}
	return watcherSource{dw}, nil
}

// deletionGate is the done condition under --stop-when deletion: nothing
// holds until the pod is being deleted (deleting is closed when the
// termination signal is held); from then on, the inner source's. A done
// file, stale or new, found before then is the end of a main that the
// kubelet will start again. The inner source runs meanwhile until its
// condition first holds, so that what it sets up and warns about is as
// under the other --stop-when.
type deletionGate struct {
	inner    doneSource
	deleting <-chan struct{}
}

func (g deletionGate) check() (doneEvent, bool) { return doneEvent{}, false }

func (g deletionGate) run(ctx context.Context, out chan<- doneEvent) {
	if _, done := g.inner.check(); !done {
		innerCtx, cancel := context.WithCancel(ctx)
		early, ended := make(chan doneEvent, 1), make(chan struct{})
		go func() {
			defer close(ended)
			g.inner.run(innerCtx, early)
		}()
		select {
		case <-g.deleting:
		case <-early: // a main's end before the deletion: a restart to come
		case <-ctx.Done():
		}
		cancel()
		<-ended
	}
	select {
	case <-ctx.Done():
		return
	case <-g.deleting:
	}
	if ev, done := g.inner.check(); done {
		select {
		case out <- ev:
		case <-ctx.Done():
		}
		return
	}
	g.inner.run(ctx, out)
}

// doneWatchConfig is the watcher's part of the sidecar's config, on the
// world's clock. Without done files (a shared PID namespace) the `tandem
// main` that signals this sidecar is held through a pidfd, found by the
// world's peer finder.
func doneWatchConfig(cfg Config, w world) donewatch.Config {
	sc := cfg.Sidecar
	dw := donewatch.Config{Paths: sc.DoneFiles, SuccessOnly: sc.StopWhen == StopWhenSuccess, Poll: sc.PollInterval,
		MainStartTimeout: sc.MainStartTimeout, StallAfter: cfg.Grace, Host: statusfile.Hostname(), Name: cfg.Name,
		Clock: w.clock, Unsearchable: unsearchable, Log: cfg.Log}
	if len(sc.DoneFiles) == 0 {
		dw.Mains = w.mains
	}
	return dw
}
