package supervisor

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/peers"
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
}

// doneSource is the sidecar's done condition: Check says whether it holds
// now; Run sends one event when it comes to hold, then returns.
type doneSource interface {
	Check() (doneEvent, bool)
	Run(ctx context.Context, out chan<- doneEvent)
}

var _ doneSource = (*doneWatcher)(nil)

// doneWatchConfig is what the done watcher needs of the sidecar's config.
type doneWatchConfig struct {
	paths            []string
	stopWhen         StopWhen
	poll             time.Duration
	mainStartTimeout time.Duration
	host             string // this pod's hostname: a done file from another pod is ignored
	// Without done files (a shared PID namespace), the `tandem main` that
	// signals this sidecar is held through a pidfd, found by name.
	mainPeers mainFinder
	name      string
}

// mainFinder finds and holds the `tandem main` peer (peers.ProcFinder).
type mainFinder interface {
	FindMain(name string) (peers.Peer, bool)
	WatchMain(p peers.Peer) (<-chan struct{}, error)
}

// mainScanInterval: how often a sidecar in a shared PID namespace looks for
// its main until it holds it (then nothing wakes it).
const mainScanInterval = 250 * time.Millisecond

func (e *engine) doneWatchConfig() doneWatchConfig {
	sc := e.cfg.Sidecar
	cfg := doneWatchConfig{paths: sc.DoneFiles, stopWhen: sc.StopWhen, poll: sc.PollInterval,
		mainStartTimeout: sc.MainStartTimeout, host: statusfile.Hostname(), name: e.cfg.Name}
	if len(sc.DoneFiles) == 0 {
		cfg.mainPeers = peers.NewProcFinder()
	}
	return cfg
}

// doneWatcher waits until every done file exists (or its main was lost) and,
// with --stop-when success, reports success. While some main is not
// attached through its lifeline, it watches the directories with inotify,
// stats after adding each watch so nothing slips between, and stats again
// every poll interval in case an event was missed (polling alone where
// inotify is unavailable). While every main is attached, the lifelines
// alone say when they end: no watch, no timer.
type doneWatcher struct {
	cfg      doneWatchConfig
	files    []*doneFile
	relevant map[string]bool // the files, their lifelines and every ancestor directory
	log      zerolog.Logger
	fsw      *fsnotify.Watcher // nil: not watching (all attached, or inotify unavailable)
	noNotify bool              // inotify is unavailable: poll alone
	released chan *doneFile    // a lifeline's holder let go
	warned   map[string]bool   // one warning per problem, not one per poll
	started  time.Time
	attached bool // some main attached once (--main-start-timeout)
}

func newDoneWatcher(cfg doneWatchConfig, log zerolog.Logger) (*doneWatcher, error) {
	w := &doneWatcher{cfg: cfg, relevant: map[string]bool{}, log: log, warned: map[string]bool{},
		started: time.Now(), released: make(chan *doneFile, len(cfg.paths))}
	for _, p := range cfg.paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		f := newDoneFile(abs)
		w.files = append(w.files, f)
		w.relevant[f.lifeline] = true
		for d := abs; !w.relevant[d]; d = filepath.Dir(d) {
			w.relevant[d] = true
		}
	}
	if len(w.files) > 0 {
		w.startWatching()
	}
	// The first json.Unmarshal into a status file builds encoding/json's
	// reflection cache; pay that here, before CMD starts, not between the
	// done file and the stop signal (docs/benchmarks.md).
	statusfile.Parse([]byte(`{"version":1,"name":"warm-up","event":"done","exitCode":0,"reason":"exited","time":"2026-01-01T00:00:00Z"}`))
	return w, nil
}

// startWatching (re)creates the inotify watch; without inotify, polling alone
// keeps the done files seen.
func (w *doneWatcher) startWatching() {
	if w.fsw != nil || w.noNotify {
		return
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.noNotify = true
		w.log.Warn().Err(err).Dur("poll_interval_ms", w.cfg.poll).
			Msg("inotify unavailable (instances used up or unsupported); falling back to polling the done files")
		return
	}
	w.fsw = fsw
	w.ensureWatches()
}

// stopWatching releases inotify while every main is attached: its teardown
// (milliseconds in the kernel) is then off the exit path, and nothing wakes
// an idle sidecar.
func (w *doneWatcher) stopWatching() {
	if w.fsw != nil {
		w.fsw.Close()
		w.fsw = nil
	}
}

// ensureWatches watches each done file's directory, or its nearest existing
// ancestor until the directory is created. Add is idempotent, and re-adding
// after a directory was deleted and recreated is what keeps the watch alive.
func (w *doneWatcher) ensureWatches() {
	if w.fsw == nil {
		return
	}
	for _, f := range w.files {
		dir := filepath.Dir(f.path)
		for {
			err := w.fsw.Add(dir)
			if err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if !errors.Is(err, unix.ENOENT) || parent == dir {
				w.warnOnce("watch:"+dir, func(e *zerolog.Event) {
					e.Err(err).Str("dir", dir).Dur("poll_interval_ms", w.cfg.poll).
						Msg("cannot watch directory; relying on polling")
				})
				break
			}
			dir = parent
		}
	}
}

func (w *doneWatcher) warnOnce(key string, msg func(*zerolog.Event)) {
	if !w.warned[key] {
		w.warned[key] = true
		msg(w.log.Warn())
	}
}

// Run sends one event to out when the done condition holds, then returns.
func (w *doneWatcher) Run(ctx context.Context, out chan<- doneEvent) {
	var noMain <-chan time.Time
	if w.cfg.mainStartTimeout > 0 && !w.attached {
		noMain = time.After(w.cfg.mainStartTimeout - time.Since(w.started))
	}
	var mainGone <-chan struct{}
	for {
		var events <-chan fsnotify.Event
		var errs <-chan error
		var tick, scanMain <-chan time.Time
		if w.fsw != nil {
			events, errs = w.fsw.Events, w.fsw.Errors
		}
		if len(w.files) > 0 && (w.fsw != nil || w.noNotify) {
			tick = time.After(w.cfg.poll)
		}
		if w.cfg.mainPeers != nil && mainGone == nil {
			if mainGone = w.findMain(); mainGone == nil {
				scanMain = time.After(mainScanInterval)
			}
		}
		var ev doneEvent
		var done bool
		select {
		case <-ctx.Done():
			return
		case e := <-events:
			if e.Op == fsnotify.Chmod || !w.relevant[e.Name] {
				continue
			}
			ev, done = w.Check()
		case err := <-errs:
			// Typically a queue overflow: events were lost, so look now.
			w.log.Warn().Err(err).Msg("inotify reported an error; checking the done files")
			ev, done = w.Check()
		case <-tick:
			ev, done = w.Check()
		case f := <-w.released:
			f.holderGone(w)
			ev, done = w.Check()
		case <-scanMain:
		case <-mainGone:
			mainGone = nil
			ev, done = w.mainLost()
		case <-noMain:
			ev, done = w.noMainAttached()
		}
		if done {
			out <- ev
			w.stopWatching()
			return
		}
	}
}

// mainLost: the main peer held through a pidfd ended without the done
// signal. Under --stop-when success it was a failed main: wait for the next.
func (w *doneWatcher) mainLost() (doneEvent, bool) {
	w.log.Warn().Str("event", cmdline.EventMainLost).Msg("the main's tandem ended without the done signal (killed outright?)")
	return doneEvent{Source: sourceLost, SeenAt: time.Now()}, w.cfg.stopWhen == StopWhenAny
}

func (w *doneWatcher) noMainAttached() (doneEvent, bool) {
	if w.attached {
		return doneEvent{}, false
	}
	w.log.Warn().Dur("main_start_timeout_ms", w.cfg.mainStartTimeout).
		Msg("no main attached and nothing done within main-start-timeout; stopping as if done")
	return doneEvent{Source: sourceNoMain, SeenAt: time.Now()}, true
}

// Check reports whether the done condition holds now, attaching to any new
// lifeline on the way, and watches the files with inotify exactly while some
// main is not attached.
func (w *doneWatcher) Check() (doneEvent, bool) {
	if len(w.files) == 0 {
		return doneEvent{}, false
	}
	w.ensureWatches() // a directory created since is watched from now on
	event := doneEvent{Source: sourceDoneFile}
	done := true
	for _, f := range w.files {
		f.attach(w)
		status, present := f.read(w)
		switch {
		case present && (w.cfg.stopWhen == StopWhenAny || status.Succeeded()):
			if event.Source != sourceLost {
				event.Path, event.Status = f.path, status
			}
		case present:
			w.warnOnce("failed:"+f.path+status.Time.String(), func(e *zerolog.Event) {
				e.Str("event", cmdline.EventMainFailed).Str("path", f.path).Int("exit_code", status.ExitCode).
					Msg("main failed; --stop-when success keeps CMD running until the done file is replaced")
			})
			done = false
		case f.lost && w.cfg.stopWhen == StopWhenAny:
			event.Source, event.Path, event.Status = sourceLost, f.path, nil
		default:
			done = false
		}
	}
	// Once done there is nothing to watch for: a watch made now would only
	// put inotify's teardown back on the exit path.
	if w.allAttached() || done {
		w.stopWatching()
	} else {
		w.startWatching()
	}
	event.SeenAt = time.Now()
	return event, done
}

// findMain holds the main peer that signals this sidecar, if it runs now.
func (w *doneWatcher) findMain() <-chan struct{} {
	p, found := w.cfg.mainPeers.FindMain(w.cfg.name)
	if !found {
		return nil
	}
	gone, err := w.cfg.mainPeers.WatchMain(p)
	if err != nil {
		return nil
	}
	if !w.attached {
		w.attached = true
		event(w.log.Info(), cmdline.EventMainAttached).Int("peer_pid", p.PID).Msg("main attached through a pidfd")
	}
	return gone
}

func (w *doneWatcher) allAttached() bool {
	for _, f := range w.files {
		if f.line == nil {
			return false
		}
	}
	return true
}
