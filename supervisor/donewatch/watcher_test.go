package donewatch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// manualClock is the done watcher's clock in these tests: the time stands
// still, and a timer fires only when the test fires it.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []timer
	asked  chan struct{} // a timer was asked for
}

type timer struct {
	d  time.Duration
	ch chan time.Time
}

// waitBound bounds every wait on the watcher: a test that fails hangs no
// longer than this.
const waitBound = 10 * time.Second

func newManualClock() *manualClock {
	return &manualClock{now: time.Now(), asked: make(chan struct{}, 1)}
}

func (c *manualClock) Now() time.Time { return c.now }

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.timers = append(c.timers, timer{d, ch})
	c.mu.Unlock()
	select {
	case c.asked <- struct{}{}:
	default:
	}
	return ch
}

// fire fires the latest timer of d, waiting until one is asked for.
func (c *manualClock) fire(t *testing.T, d time.Duration) {
	t.Helper()
	bound := time.After(waitBound)
	for {
		c.mu.Lock()
		for i := len(c.timers) - 1; i >= 0; i-- {
			if tm := c.timers[i]; tm.d == d {
				c.timers = slices.Delete(c.timers, i, i+1)
				c.mu.Unlock()
				tm.ch <- c.now
				return
			}
		}
		c.mu.Unlock()
		select {
		case <-c.asked:
		case <-bound:
			t.Fatalf("no timer of %s", d)
		}
	}
}

// fakeMains is the world's peer finder as the attach job uses it: a main
// sent on found is found by the next look, and has ended once its channel
// in ends is closed. Every look is recorded on looks.
type fakeMains struct {
	found chan peers.Peer
	ends  map[int]chan struct{}
	looks chan struct{}
}

func newFakeMains() *fakeMains {
	return &fakeMains{found: make(chan peers.Peer, 1), ends: map[int]chan struct{}{}, looks: make(chan struct{}, 100)}
}

func (m *fakeMains) FindMain(string) (peers.Peer, bool) {
	// Recorded once the look has its answer: a main offered after the test
	// saw this look is for the next one, never this one.
	defer func() { m.looks <- struct{}{} }()
	select {
	case p := <-m.found:
		return p, true
	default:
		return peers.Peer{}, false
	}
}

func (m *fakeMains) WatchMain(p peers.Peer) (<-chan struct{}, error) { return m.ends[p.PID], nil }

// offer makes the main of pid found by the next look; closing the channel
// it returns ends that main.
func (m *fakeMains) offer(pid int) chan struct{} {
	end := make(chan struct{})
	m.ends[pid] = end
	m.found <- peers.Peer{PID: pid, Name: "proxy"}
	return end
}

func (m *fakeMains) waitLook(t *testing.T) {
	t.Helper()
	select {
	case <-m.looks:
	case <-time.After(waitBound):
		t.Fatal("the main was not looked for")
	}
}

func watchFor(t *testing.T, cfg Config) (*Watcher, chan Event) {
	t.Helper()
	w, _, out := watchWith(t, cfg, nil)
	return w, out
}

// watchWith builds a watcher on a manual clock and mains as its peer finder.
func watchWith(t *testing.T, cfg Config, mains MainFinder) (*Watcher, *manualClock, chan Event) {
	t.Helper()
	if cfg.Poll == 0 {
		cfg.Poll = time.Hour // inotify alone must see it (the clock never fires it anyway)
	}
	clk := newManualClock()
	cfg.Clock, cfg.Mains, cfg.Log = clk, mains, zerolog.Nop()
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Close inotify when the test is over (after runWatcher's cleanup,
	// which waits for Run).
	t.Cleanup(w.closeWatch)
	return w, clk, make(chan Event, 1)
}

// runWatcher starts Run; Check must not be called after (Run owns w). The
// test's end stops run and waits for it.
func runWatcher(t *testing.T, w *Watcher, out chan Event) {
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	t.Cleanup(func() { cancel(); <-ended })
	go func() {
		defer close(ended)
		w.Run(ctx, out)
	}()
}

func waitDone(t *testing.T, out chan Event) Event {
	t.Helper()
	select {
	case ev := <-out:
		return ev
	case <-time.After(waitBound):
		t.Fatal("done condition not seen")
	}
	return Event{}
}

func writeDone(t *testing.T, path string, f statusfile.File) {
	t.Helper()
	if err := statusfile.Write(path, f); err != nil {
		t.Fatal(err)
	}
}

// Every file must exist; one in a directory created later is seen too.
func TestDoneWatcherEveryFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.done"), filepath.Join(dir, "later", "b.done")
	w, out := watchFor(t, Config{Paths: []string{a, b}, Host: "pod-1"})
	writeDone(t, a, statusfile.File{Event: "done", Host: "pod-1"})
	if _, done := w.Check(); done {
		t.Fatal("done with one file of two")
	}
	runWatcher(t, w, out)
	writeDone(t, b, statusfile.File{Event: "done", Name: "b", ExitCode: 2, Host: "pod-1"})
	ev := waitDone(t, out)
	if ev.Source != SourceDoneFile || ev.Path != b || ev.Status == nil || ev.Status.ExitCode != 2 {
		t.Fatalf("event %+v", ev)
	}
}

// A bare touch counts; a file from another pod (its host differs) does not.
func TestDoneWatcherHost(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	w, out := watchFor(t, Config{Paths: []string{done}, Host: "pod-1"})
	writeDone(t, done, statusfile.File{Event: "done", Host: "pod-2"})
	if _, ok := w.Check(); ok {
		t.Fatal("another pod's done file counted")
	}
	runWatcher(t, w, out)
	if err := os.WriteFile(done, nil, 0o644); err != nil { // a touch: no host
		t.Fatal(err)
	}
	if ev := waitDone(t, out); ev.Status != nil {
		t.Fatalf("a touch parsed as %+v", ev.Status)
	}
}

// --stop-when success ignores a failed main until the file is replaced.
func TestDoneWatcherStopWhenSuccess(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 1})
	w, out := watchFor(t, Config{Paths: []string{done}, SuccessOnly: true})
	if _, ok := w.Check(); ok {
		t.Fatal("a failed main counted")
	}
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 0})
	if ev := waitDone(t, out); ev.Status.ExitCode != 0 {
		t.Fatalf("event %+v", ev)
	}
}

// Where inotify sees nothing, the poll still finds the file.
func TestDoneWatcherPolls(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	w, clk, out := watchWith(t, Config{Paths: []string{done}, Poll: 10 * time.Millisecond}, nil)
	w.off = true // as when inotify is unavailable
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done"})
	clk.fire(t, 10*time.Millisecond)
	waitDone(t, out)
}

// --main-start-timeout: nothing done, no main attached: stop as if done.
func TestDoneWatcherMainStartTimeout(t *testing.T) {
	w, clk, out := watchWith(t, Config{MainStartTimeout: 20 * time.Millisecond}, nil)
	runWatcher(t, w, out)
	clk.fire(t, 20*time.Millisecond)
	if ev := waitDone(t, out); ev.Source != SourceNoMain {
		t.Fatalf("event %+v, want no-main", ev)
	}
}

// While its main is attached the watcher holds no inotify watch; the
// lifeline's release with the done file in place is the normal end.
func TestDoneWatcherLifelineNormalEnd(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	h, err := lifeline.Hold(lifeline.Of(done), statusfile.Hostname())
	if err != nil {
		t.Fatal(err)
	}
	w, out := watchFor(t, Config{Paths: []string{done}})
	if _, ok := w.Check(); ok || w.fsw != nil {
		t.Fatalf("attached main: done %v, inotify %v; want not done, no watch", ok, w.fsw != nil)
	}
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 0})
	h.Release()
	if ev := waitDone(t, out); ev.Source != SourceDoneFile || ev.Status == nil {
		t.Fatalf("event %+v, want the done file", ev)
	}
}

// killableHolder holds a lifeline as tandem main does; kill lets go as a
// main killed outright does (the FIFO stays, with no holder).
func killableHolder(t *testing.T, path string) (kill func()) {
	t.Helper()
	// This pod's, not another's: mkfifo(2) gives about one time in a
	// thousand an mtime whose nanoseconds read as another pod's tag.
	return killableHolderAt(t, path, time.Unix(time.Now().Unix(), 1))
}

// stampOf is the modification time a holder of kind in this pod stamps
// on its lifeline.
func stampOf(t *testing.T, kind lifeline.Kind) time.Time {
	t.Helper()
	scratch := filepath.Join(t.TempDir(), "scratch.lifeline")
	h, err := lifeline.HoldAs(scratch, statusfile.Hostname(), kind)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	var st unix.Stat_t
	if err := unix.Stat(scratch, &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.Mtim.Sec, st.Mtim.Nsec)
}

// killableHolderAt is killableHolder with the FIFO's modification time at.
func killableHolderAt(t *testing.T, path string, at time.Time) (kill func()) {
	t.Helper()
	tmp := path + ".tmp"
	if err := unix.Mkfifo(tmp, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, at, at); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(tmp, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return func() { unix.Close(fd) }
}

// A holder gone without the done file is a lost main, whether the sidecar
// was there first or came later.
func TestDoneWatcherLost(t *testing.T) {
	for _, late := range []bool{false, true} {
		done := filepath.Join(t.TempDir(), "done")
		kill := killableHolder(t, lifeline.Of(done))
		if late {
			kill()
		}
		w, out := watchFor(t, Config{Paths: []string{done}})
		ev, ok := w.Check()
		if late {
			if !ok || ev.Source != SourceLost {
				t.Fatalf("late sidecar: %+v %v, want lost at once", ev, ok)
			}
			continue
		}
		runWatcher(t, w, out)
		kill()
		if ev := waitDone(t, out); ev.Source != SourceLost || ev.Path != done {
			t.Fatalf("event %+v, want lost", ev)
		}
	}
}

// --stop-when success: a lost main is a failed one; the next main attaches
// and its success ends it.
func TestDoneWatcherLostThenRetried(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	killableHolder(t, lifeline.Of(done))()
	w, out := watchFor(t, Config{Paths: []string{done}, SuccessOnly: true})
	if _, ok := w.Check(); ok {
		t.Fatal("a lost main counted under --stop-when success")
	}
	runWatcher(t, w, out)
	second, err := lifeline.Hold(lifeline.Of(done), statusfile.Hostname())
	if err != nil {
		t.Fatal(err)
	}
	writeDone(t, done, statusfile.File{Event: "done", ExitCode: 0})
	second.Release()
	if ev := waitDone(t, out); ev.Source != SourceDoneFile || ev.Status == nil || ev.Status.ExitCode != 0 {
		t.Fatalf("event %+v, want the retried main's success", ev)
	}
}

// A sidecar's stopped file whose holder was lost, whether the watcher was
// there first or came later: that sidecar is gone, which counts as stopped
// even under --stop-when success (which is about the main's exit status).
func TestDoneWatcherStoppedFileLostUnderSuccess(t *testing.T) {
	for _, late := range []bool{false, true} {
		stopped := filepath.Join(t.TempDir(), "proxy.stopped")
		kill := killableHolderAt(t, lifeline.Of(stopped), stampOf(t, lifeline.KindStopped))
		if late {
			kill()
		}
		w, out := watchFor(t, Config{Paths: []string{stopped}, SuccessOnly: true, Host: statusfile.Hostname()})
		ev, ok := w.Check()
		if late {
			if !ok || ev.Source != SourceLost || ev.Path != stopped {
				t.Fatalf("late watcher: %+v %v, want lost at once", ev, ok)
			}
			continue
		}
		if ok {
			t.Fatal("a sidecar still running counted as stopped")
		}
		runWatcher(t, w, out)
		kill()
		if ev := waitDone(t, out); ev.Source != SourceLost || ev.Path != stopped {
			t.Fatalf("event %+v, want the sidecar lost", ev)
		}
	}
}

// Something else at the lifeline's path: the done file alone, never "lost".
func TestDoneWatcherLifelineUnusable(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	if err := os.Mkdir(lifeline.Of(done), 0o755); err != nil {
		t.Fatal(err)
	}
	w, out := watchFor(t, Config{Paths: []string{done}})
	if _, ok := w.Check(); ok || w.fsw == nil {
		t.Fatal("want not done, and the done file watched")
	}
	runWatcher(t, w, out)
	writeDone(t, done, statusfile.File{Event: "done"})
	if ev := waitDone(t, out); ev.Source != SourceDoneFile {
		t.Fatalf("event %+v", ev)
	}
}

// A lifeline held in another pod (a shared volume) is not attached to: the
// watcher keeps watching for its own main, and a release there is no loss.
func TestDoneWatcherForeignLifeline(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	other, err := lifeline.Hold(lifeline.Of(done), "another-pod")
	if err != nil {
		t.Fatal(err)
	}
	w, out := watchFor(t, Config{Paths: []string{done}, Host: "this-pod"})
	if _, ok := w.Check(); ok || w.attached || w.fsw == nil {
		t.Fatalf("attached %v, watching %v: want not attached, the done file watched", w.attached, w.fsw != nil)
	}
	runWatcher(t, w, out)
	other.Release()
	own, err := lifeline.Hold(lifeline.Of(done), "this-pod")
	if err != nil {
		t.Fatal(err)
	}
	writeDone(t, done, statusfile.File{Event: "done", Host: "this-pod"})
	own.Release()
	if ev := waitDone(t, out); ev.Source != SourceDoneFile || ev.Status == nil || ev.Status.Host != "this-pod" {
		t.Fatalf("event %+v, want this pod's done file", ev)
	}
}

// Without done files, the `tandem main` peer is held through a pidfd, looked
// for every mainScanInterval until found; its end without the done signal
// is a lost main. (In a synctest bubble, synctest.Wait lets the loop settle
// on its current timers before one is fired.)
func TestDoneWatcherPeerMainLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mains := newFakeMains()
		w, clk, out := watchWith(t, Config{Name: "proxy"}, mains)
		runWatcher(t, w, out)
		mains.waitLook(t) // not there yet
		end := mains.offer(42)
		synctest.Wait()
		clk.fire(t, mainScanInterval)
		mains.waitLook(t) // found and held
		close(end)
		synctest.Wait()
		select {
		case ev := <-out:
			t.Fatalf("event %+v before peerLossSettle: a done signal sent just before the exit would lose to it", ev)
		default:
		}
		clk.fire(t, peerLossSettle)
		if ev := waitDone(t, out); ev.Source != SourceLost || ev.Path != "" || ev.Status != nil {
			t.Fatalf("event %+v, want lost", ev)
		}
	})
}

// --stop-when success: a lost peer main is a failed one, not done; the next
// main is held in turn, and once a main attached, --main-start-timeout no
// longer stops the sidecar.
func TestDoneWatcherPeerMainLostUnderSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mains := newFakeMains()
		cfg := Config{Name: "proxy", SuccessOnly: true, MainStartTimeout: time.Minute}
		w, clk, out := watchWith(t, cfg, mains)
		end := mains.offer(42)
		runWatcher(t, w, out)
		mains.waitLook(t) // found at once and held
		close(end)
		synctest.Wait()
		clk.fire(t, peerLossSettle)
		mains.waitLook(t) // lost: the next main is looked for
		synctest.Wait()
		clk.fire(t, time.Minute)
		mains.waitLook(t) // the timeout is over and the loop went on
		next := mains.offer(43)
		synctest.Wait()
		clk.fire(t, mainScanInterval)
		mains.waitLook(t)
		close(next)
		synctest.Wait()
		clk.fire(t, peerLossSettle)
		mains.waitLook(t)
		synctest.Wait()
		select {
		case ev := <-out:
			t.Fatalf("event %+v: a lost main or the start timeout counted as done under --stop-when success", ev)
		default:
		}
	})
}

// --main-start-timeout with no peer main ever found: stop as if done.
func TestDoneWatcherPeerMainNeverFound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mains := newFakeMains()
		w, clk, out := watchWith(t, Config{Name: "proxy", MainStartTimeout: time.Minute}, mains)
		runWatcher(t, w, out)
		mains.waitLook(t)
		synctest.Wait()
		clk.fire(t, mainScanInterval)
		mains.waitLook(t)
		synctest.Wait()
		clk.fire(t, time.Minute)
		if ev := waitDone(t, out); ev.Source != SourceNoMain {
			t.Fatalf("event %+v, want no-main", ev)
		}
	})
}
