package donewatch

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// Sources of an Event, in the done-seen log line.
const (
	SourceDoneFile = "done-file"
	SourceLost     = "lost"
	SourceNoMain   = "no-main"
)

// Event says the main work is done, and how the watcher learned it.
type Event struct {
	Source string           // one of the Source names, or the engine's own
	Path   string           // the last done file read, for done-file and lost
	Status *statusfile.File // nil when unknown (a bare touch, a signal, a lost main)
	SeenAt time.Time
	// Err: the condition can never be known (a done file's directory that
	// cannot be searched): tandem fails rather than wait for ever.
	Err error
}

// Clock gives the time and timers.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// MainFinder finds and holds the `tandem main` peer (peers.ProcFinder).
type MainFinder interface {
	FindMain(name string) (peers.Peer, bool)
	WatchMain(p peers.Peer) (<-chan struct{}, error)
}

// Config is what the watcher needs of the sidecar's flags and world.
type Config struct {
	Paths            []string      // --done-file
	SuccessOnly      bool          // --stop-when success: neither a failed main nor a lost one is done (a lost sidecar is stopped)
	Poll             time.Duration // --poll-interval
	MainStartTimeout time.Duration // 0: off
	// StallAfter: once some done files are there and others are not for
	// this long (the sidecar's --grace), say which are awaited; 0: never.
	StallAfter time.Duration
	Host       string // this pod's hostname: a done file from another pod is ignored
	Name       string // this sidecar's --name, which its `tandem main` peer signals
	Clock      Clock
	Mains      MainFinder // without done files: the `tandem main` peer to hold
	// Unsearchable says why a done file cannot even be looked for
	// (permission denied on its way), else nil; nil means never.
	Unsearchable func(path string) error
	Log          zerolog.Logger
}

// Watcher waits until every done file exists (or its main was lost) and,
// with SuccessOnly, reports success. Check and Run are called from one
// goroutine at a time.
type Watcher struct {
	cfg      Config
	log      zerolog.Logger
	files    []*doneFile
	relevant map[string]bool // the files, their lifelines and every directory on their way
	warn     onceWarner
	fsw      *fsnotify.Watcher // nil while not watching
	off      bool              // fsnotify is unavailable: poll alone
	released chan *doneFile    // a lifeline's holder let go
	held     <-chan struct{}   // the held peer main's end; nil while none is held
	attached bool              // some main attached once (--main-start-timeout)
	stall    stallWatch
	started  time.Time
	// beforeWatch, in tests, runs before each watch is added.
	beforeWatch func(dir string)
}

// New builds the watcher; it watches nothing until the first Check.
func New(cfg Config) (*Watcher, error) {
	w := &Watcher{cfg: cfg, log: cfg.Log, relevant: map[string]bool{},
		warn:     onceWarner{log: cfg.Log, warned: map[string]bool{}},
		released: make(chan *doneFile, len(cfg.Paths)), started: cfg.Clock.Now()}
	for _, p := range cfg.Paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("done file %q: %w", p, err)
		}
		f := newDoneFile(abs)
		w.files = append(w.files, f)
		w.relevant[f.lifeline] = true
		for d := abs; !w.relevant[d]; d = filepath.Dir(d) {
			w.relevant[d] = true
		}
	}
	return w, nil
}

// Check reports whether the done condition holds now. While it does not,
// it attaches to new lifelines, keeps the directories watched exactly while
// some main is not attached, and looks again: a file written, or a
// lifeline put in place, before a watch was added raised no event on it.
func (w *Watcher) Check() (Event, bool) {
	if len(w.files) == 0 {
		return Event{}, false
	}
	if ev, done := w.look(); done {
		return ev, true
	}
	w.attachAll()
	w.watch()
	if w.attachAll() {
		w.watch() // every main may be attached now: no watch left
	}
	return w.look()
}

// attachAll attaches to every new lifeline; true if one was attached.
func (w *Watcher) attachAll() bool {
	attached := false
	for _, f := range w.files {
		attached = w.attach(f) || attached
	}
	return attached
}

// Run sends one Event to out when the done condition holds, then returns.
// It goes on from the first Check, which set up what it waits on.
func (w *Watcher) Run(ctx context.Context, out chan<- Event) {
	defer w.closeWatch()
	var poll <-chan time.Time
	noMain := w.startExpiry()
	for {
		if !w.polling() {
			poll = nil
		} else if poll == nil {
			poll = w.cfg.Clock.After(w.cfg.Poll)
		}
		mainGone, rescan := w.peerMain()
		var ev Event
		var done bool
		select {
		case <-ctx.Done():
			return
		case e := <-w.events():
			if w.matters(e) {
				ev, done = w.Check()
			}
		case err := <-w.errors():
			event(w.log.Warn(), cmdline.EventWatchError).Err(err).Msg("fsnotify reported an error (events lost?); checking the done files")
			ev, done = w.Check()
		case <-poll:
			poll = nil
			ev, done = w.Check()
		case f := <-w.released:
			w.holderGone(f)
			ev, done = w.Check()
		case <-rescan:
		case <-mainGone:
			w.held = nil
			if !w.settleLoss(ctx) {
				return
			}
			ev, done = w.mainLost()
		case <-noMain:
			ev, done = w.startExpired()
		case <-w.stall.timer:
			w.stall.timer, w.stall.due = nil, true
			ev, done = w.Check()
		}
		if done {
			out <- ev
			return
		}
	}
}

// polling: the files are stat'ed every --poll-interval while they are
// watched, in case an event was missed, and always where fsnotify is
// unavailable; never while every main is attached.
func (w *Watcher) polling() bool {
	return len(w.files) > 0 && (w.fsw != nil || w.off)
}
