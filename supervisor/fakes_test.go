package supervisor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// Hand-written fakes behind the engine's seams (world.go). Every call the
// engine makes is recorded on a channel, so a test waits for the event it
// expects instead of sleeping, and drives timers by hand.

// waitBound is a safety bound on every wait of these tests, never what they
// synchronise on.
const waitBound = 10 * time.Second

type fakeChild struct {
	*process.Child
	exited  chan process.Status
	stopped chan unix.Signal
}

type sent struct {
	pid   int
	sig   unix.Signal
	group bool
}

type timer struct {
	d  time.Duration
	ch chan time.Time
}

type fakes struct {
	t        *testing.T
	mu       sync.Mutex
	nextPid  int
	startErr error
	starts   chan *fakeChild
	sent     chan sent
	timers   chan timer
	alive    func(pgid int) bool
	writes   chan statusfile.File
	writeErr func(path string) error
	quits    chan []probe.Target
	// quitAnswers, when set, holds each quit call until it is closed or the
	// call is cancelled; quitEnded then says which came first.
	quitAnswers chan struct{}
	quitEnded   chan string
	jobs        bool
	noMain      atomic.Bool // no main holds a lifeline: nothing to outlive
	unmarked    atomic.Bool // no main marked its termination: a signal to the sidecar alone
	markHost    string      // the host a mark names ("": a bare file, no host)
	terminal    chan string // "take", "give", "stop-self"
	reaped      chan struct{}
	// onSignal, when set, runs inside Signal before it is recorded: a test
	// holds the loop there while it lines up the events that follow.
	onSignal func(sent)
	// onTimer, likewise, runs inside After once the timer is recorded.
	onTimer func(timer)
}

func newFakes(t *testing.T) *fakes {
	return &fakes{t: t, nextPid: 100, starts: make(chan *fakeChild, 10), sent: make(chan sent, 100),
		timers: make(chan timer, 100), alive: func(int) bool { return false }, writes: make(chan statusfile.File, 10),
		writeErr: func(string) error { return nil }, quits: make(chan []probe.Target, 10), terminal: make(chan string, 10),
		reaped: make(chan struct{})}
}

func (f *fakes) Start(argv []string, _ process.Options) (*process.Child, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.startErr != nil {
		return nil, f.startErr
	}
	f.nextPid++
	c := &fakeChild{exited: make(chan process.Status, 1), stopped: make(chan unix.Signal, 1)}
	c.Child = &process.Child{Pid: f.nextPid, Exited: c.exited, Stopped: c.stopped, Started: time.Now()}
	f.starts <- c
	return c.Child, nil
}

func (f *fakes) Signal(pid int, sig unix.Signal, group bool) error {
	if f.onSignal != nil {
		f.onSignal(sent{pid, sig, group})
	}
	f.sent <- sent{pid, sig, group}
	return nil
}

func (f *fakes) GroupAlive(pgid int) bool { return f.alive(pgid) }
func (f *fakes) Now() time.Time           { return time.Now() }

func (f *fakes) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	f.timers <- timer{d, ch}
	if f.onTimer != nil {
		f.onTimer(timer{d, ch})
	}
	return ch
}

func (f *fakes) JobControl() bool    { return f.jobs }
func (f *fakes) Take() error         { f.terminal <- "take"; return nil }
func (f *fakes) Give(pgid int) error { f.terminal <- "give"; return nil }
func (f *fakes) StopSelf() error     { f.terminal <- "stop-self"; return nil }

func (f *fakes) Quit(ctx context.Context, urls []probe.Target, _ time.Duration, _ zerolog.Logger) {
	f.quits <- urls
	if f.quitAnswers == nil {
		return
	}
	select {
	case <-f.quitAnswers:
		f.quitEnded <- "answered"
	case <-ctx.Done():
		f.quitEnded <- "cancelled"
	}
}

func (f *fakes) Write(path string, file statusfile.File) error {
	if err := f.writeErr(path); err != nil {
		return err
	}
	file.Event += ":" + path // tests check which file got which event
	f.writes <- file
	return nil
}

func (f *fakes) world() world {
	return world{starter: f, signaller: f, clock: f, terminal: f, quitter: f, files: f,
		prober: &probe.Real{}, peers: &fakeFinder{}, reaped: f.reaped,
		mainHolds:  func(string) bool { return !f.noMain.Load() },
		markOfMain: f.readMark}
}

func (f *fakes) readMark(string) (*statusfile.File, bool) {
	if f.unmarked.Load() {
		return nil, false
	}
	if f.markHost == "" {
		return nil, true
	}
	return &statusfile.File{Version: 1, Event: statusfile.EventTerminating, Host: f.markHost}, true
}

// fakeSource is a sidecar's done sources: the test decides when it holds.
type fakeSource struct {
	already bool
	failing error // check reports the condition cannot be known
	events  chan doneEvent
}

func (s *fakeSource) check() (doneEvent, bool) {
	if s.failing != nil {
		return doneEvent{Err: s.failing}, true
	}
	return doneEvent{Source: sourceDoneFile, Path: "/shared/done"}, s.already
}

func (s *fakeSource) run(ctx context.Context, out chan<- doneEvent) {
	select {
	case ev := <-s.events:
		out <- ev
	case <-ctx.Done():
	}
}

type fakeFinder struct{}

func (*fakeFinder) FindPeers() ([]peers.Peer, error)         { return nil, nil }
func (*fakeFinder) SignalPeer(peers.Peer, unix.Signal) error { return errors.New("no peers here") }

// rig is one engine under test, run in its own goroutine.
type rig struct {
	t      *testing.T
	f      *fakes
	e      *engine
	source *fakeSource
	sigs   chan os.Signal
	out    chan outcome
}

func newRig(t *testing.T, cfg Config, prepare ...func(*fakes)) *rig {
	t.Helper()
	if err := cfg.validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	f := newFakes(t)
	for _, p := range prepare {
		p(f)
	}
	r := &rig{t: t, f: f, source: &fakeSource{events: make(chan doneEvent, 1)}, sigs: make(chan os.Signal, 10), out: make(chan outcome, 1)}
	r.e = newEngine(cfg, f.world(), r.sigs)
	r.e.newSource = func() (doneSource, error) { return r.source, nil }
	return r
}

func (r *rig) run() *rig {
	ctx, cancel := context.WithCancel(context.Background())
	r.t.Cleanup(cancel)
	go func() { r.out <- r.e.run(ctx) }()
	return r
}

func (r *rig) child() *fakeChild {
	r.t.Helper()
	select {
	case c := <-r.f.starts:
		return c
	case out := <-r.out:
		r.t.Fatalf("tandem ended (%+v) instead of starting CMD", out)
	case <-time.After(waitBound):
		r.t.Fatal("CMD was not started")
	}
	return nil
}

func (r *rig) wantSent(pid int, sig unix.Signal) {
	r.t.Helper()
	select {
	case s := <-r.f.sent:
		if s.pid != pid || s.sig != sig {
			r.t.Fatalf("sent %v to %d, want %v to %d", s.sig, s.pid, sig, pid)
		}
	case <-time.After(waitBound):
		r.t.Fatalf("nothing sent, want %v to %d", sig, pid)
	}
}

// noneSent checks that nothing was signalled so far.
func (r *rig) noneSent() {
	r.t.Helper()
	select {
	case s := <-r.f.sent:
		r.t.Fatalf("sent %v to %d, want nothing", s.sig, s.pid)
	default:
	}
}

// timer waits for the engine to ask for a timer of d and returns it.
func (r *rig) timer(d time.Duration) timer {
	r.t.Helper()
	for {
		select {
		case tm := <-r.f.timers:
			if tm.d == d {
				return tm
			}
		case <-time.After(waitBound):
			r.t.Fatalf("no timer of %s", d)
		}
	}
}

func (r *rig) fire(d time.Duration) { r.timer(d).ch <- time.Now() }

func (r *rig) signal(sig unix.Signal) { r.sigs <- sig }

func (r *rig) done() {
	r.source.events <- doneEvent{Source: sourceDoneFile, Path: "/shared/done", SeenAt: time.Now()}
}

func (r *rig) outcome() outcome {
	r.t.Helper()
	select {
	case out := <-r.out:
		return out
	case <-time.After(waitBound):
		r.t.Fatal("tandem did not end")
	}
	return outcome{}
}

func (r *rig) wantOutcome(code int, reason string) outcome {
	r.t.Helper()
	out := r.outcome()
	if out.code != code || out.reason != reason {
		r.t.Fatalf("outcome %d %q (err %v), want %d %q", out.code, out.reason, out.err, code, reason)
	}
	return out
}

func (r *rig) wantWrite(event string) statusfile.File {
	r.t.Helper()
	select {
	case f := <-r.f.writes:
		if f.Event != event {
			r.t.Fatalf("wrote %+v, want event %s", f, event)
		}
		return f
	case <-time.After(waitBound):
		r.t.Fatalf("no %s written", event)
	}
	return statusfile.File{}
}

func exitedWith(code int) process.Status      { return process.Status{Code: code} }
func killedBy(sig unix.Signal) process.Status { return process.Status{Signal: sig} }

func testConfig(mode Mode) Config {
	cfg := Defaults(mode)
	cfg.Command = []string{"cmd"}
	return cfg
}

// logEvents is a logger whose lines' events a test waits for.
type logEvents struct {
	t      *testing.T
	events chan map[string]any
}

func newLogEvents(t *testing.T) (*logEvents, zerolog.Logger) {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	l := &logEvents{t: t, events: make(chan map[string]any, 100)}
	go func() {
		s := bufio.NewScanner(r)
		for s.Scan() {
			var line map[string]any
			if json.Unmarshal(s.Bytes(), &line) == nil {
				l.events <- line
			}
		}
	}()
	return l, zerolog.New(w)
}

// want waits for a line with event name; lines before it are skipped and
// returned with it.
func (l *logEvents) want(name string) (line map[string]any, before []map[string]any) {
	l.t.Helper()
	for {
		select {
		case line := <-l.events:
			if line["event"] == name {
				return line, before
			}
			before = append(before, line)
		case <-time.After(waitBound):
			l.t.Fatalf("no %s line", name)
		}
	}
}

// end returns every line logged so far (the engine has returned).
func (l *logEvents) end(log zerolog.Logger) (map[string]any, []map[string]any) {
	l.t.Helper()
	log.Info().Str("event", "test-end").Send()
	return l.want("test-end")
}
