package supervisor

import (
	"context"
	"path/filepath"
	"runtime"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// Done sources, in the done-seen log line.
const (
	sourceDoneFile   = "done-file"
	sourceDoneSignal = "done-signal"
	sourceLost       = "lost"
	sourceNoMain     = "no-main"
)

// doneEvent says the main work is done, and how tandem learned it.
type doneEvent struct {
	Source string           // one of the source* names
	Path   string           // the last done file read, for done-file and lost
	Status *statusfile.File // nil when unknown (a bare touch, a signal, a lost main)
	SeenAt time.Time
	// Err: the condition can never be known (a done file's directory that
	// cannot be searched): tandem fails rather than wait for ever.
	Err error
}

// doneSource is the sidecar's done condition: check says whether it holds
// now; run sends one event when it comes to hold, then returns.
type doneSource interface {
	check() (doneEvent, bool)
	run(ctx context.Context, out chan<- doneEvent)
}

var _ doneSource = (*doneWatcher)(nil)

// doneWatchConfig is what the done watcher needs of the sidecar's config.
type doneWatchConfig struct {
	paths            []string
	stopWhen         StopWhen
	poll             time.Duration
	mainStartTimeout time.Duration
	host             string // this pod's hostname: a done file from another pod is ignored
	name             string // this sidecar's --name, which its `tandem main` peer signals
}

func (e *engine) doneWatchConfig() doneWatchConfig {
	sc := e.cfg.Sidecar
	return doneWatchConfig{paths: sc.DoneFiles, stopWhen: sc.StopWhen, poll: sc.PollInterval,
		mainStartTimeout: sc.MainStartTimeout, host: statusfile.Hostname(), name: e.cfg.Name}
}

// newDoneWatcher builds the sidecar's done watcher on the world's clock.
// Without done files (a shared PID namespace) the `tandem main` that
// signals this sidecar is held through a pidfd, found by the world's peer
// finder.
func (e *engine) newDoneWatcher() (*doneWatcher, error) {
	var mains mainFinder
	if len(e.cfg.Sidecar.DoneFiles) == 0 {
		mains = e.w.mains
	}
	return newDoneWatcher(e.doneWatchConfig(), e.w.clock, mains, e.log)
}

// doneWatcher waits until every done file exists (or its main was lost) and,
// with --stop-when success, reports success. Its jobs each deliver what they
// see on a channel, and only its loop (run) acts on it:
//
//   - watch (donenotify.go): inotify on the files' directories, while some
//     main is not attached through its lifeline;
//   - poll (donepoll.go): a stat of every file each --poll-interval, in case
//     an event was missed (alone where inotify is unavailable);
//   - attach (doneattach.go): the mains held through their lifelines, or a
//     `tandem main` peer through a pidfd; while every main is attached, their
//     ends alone say when to look: no watch, no timer;
//   - start timeout (donestart.go): --main-start-timeout.
//
// The condition over the files is donecondition.go; one file, donefile.go.
type doneWatcher struct {
	cfg    doneWatchConfig
	clock  clock
	log    zerolog.Logger
	files  []*doneFile
	warn   *onceWarner
	notify *notifyWatch
	poll   poll
	attach *attacher
	start  startTimeout
}

func newDoneWatcher(cfg doneWatchConfig, clk clock, mains mainFinder, log zerolog.Logger) (*doneWatcher, error) {
	warn := &onceWarner{log: log, warned: map[string]bool{}}
	w := &doneWatcher{cfg: cfg, clock: clk, log: log, warn: warn,
		notify: newNotifyWatch(cfg.poll, log, warn),
		poll:   poll{clock: clk, every: cfg.poll},
		attach: newAttacher(clk, mains, cfg.name, cfg.host, len(cfg.paths), log, warn),
		start:  startTimeout{clock: clk, limit: cfg.mainStartTimeout, started: clk.Now(), log: log}}
	for _, p := range cfg.paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		f := newDoneFile(abs)
		w.files = append(w.files, f)
		w.notify.add(f)
	}
	if len(w.files) > 0 {
		w.notify.start()
	}
	// The first parse of a status line builds encoding/json's reflection
	// cache, for a line the fast path leaves to it (the escape below); pay
	// that here, before CMD starts, not between the done file and the stop
	// signal (docs/benchmarks.md).
	statusfile.Parse([]byte(`{"version":1,"name":"warm\u002dup","event":"done","exitCode":0,"reason":"exited","time":"2026-01-01T00:00:00Z"}`))
	return w, nil
}

// run sends one event to out when the done condition holds, then returns.
func (w *doneWatcher) run(ctx context.Context, out chan<- doneEvent) {
	defer w.notify.stop()
	noMain := w.start.expiry(w.attach.attached)
	for {
		mainGone, rescan := w.attach.peerMain()
		var ev doneEvent
		var done bool
		select {
		case <-ctx.Done():
			return
		case <-w.notify.changed:
			ev, done = w.check()
		case <-w.poll.due(w.polling()):
			w.notify.unsettle()
			ev, done = w.check()
		case f := <-w.attach.released:
			w.attach.holderGone(f)
			ev, done = w.check()
		case <-rescan:
		case <-mainGone:
			w.attach.peerEnded()
			if !w.settleLoss(ctx) {
				return
			}
			ev, done = w.mainLost()
		case <-noMain:
			ev, done = w.start.expired(w.attach.attached)
		}
		if done {
			out <- ev
			// The loop, just made runnable on this P, signals CMD before
			// the watches are removed.
			runtime.Gosched()
			// Removed now, the watches are freed while CMD stops; inotify is
			// closed when the run is over, with nothing left to wait for.
			w.notify.unwatch()
			<-ctx.Done()
			return
		}
	}
}

// polling: the files are polled while they are watched, and always where
// inotify is unavailable.
func (w *doneWatcher) polling() bool {
	return len(w.files) > 0 && (w.notify.watching() || w.notify.off)
}
