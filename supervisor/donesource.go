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

// newDoneWatcher builds the sidecar's done watcher.
func (e *engine) newDoneWatcher() (doneSource, error) {
	w, err := donewatch.New(e.doneWatchConfig())
	if err != nil {
		return nil, err
	}
	return watcherSource{w}, nil
}

// doneWatchConfig is the watcher's part of the sidecar's config, on the
// world's clock. Without done files (a shared PID namespace) the `tandem
// main` that signals this sidecar is held through a pidfd, found by the
// world's peer finder.
func (e *engine) doneWatchConfig() donewatch.Config {
	sc := e.cfg.Sidecar
	cfg := donewatch.Config{Paths: sc.DoneFiles, SuccessOnly: sc.StopWhen != StopWhenAny, Poll: sc.PollInterval,
		MainStartTimeout: sc.MainStartTimeout, StallAfter: e.cfg.Grace, Host: statusfile.Hostname(), Name: e.cfg.Name,
		Clock: e.w.clock, Unsearchable: unsearchable, Log: e.log}
	if len(sc.DoneFiles) == 0 {
		cfg.Mains = e.w.mains
	}
	return cfg
}
