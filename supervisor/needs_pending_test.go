package supervisor

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/probe"
)

// A needed sidecar lost, pending at once with another event (see
// pending_test.go for the rig): it ranks last. CMD's exit outranks it (the
// main was done first), and so do signals (a main already stopping on its
// termination signal keeps its reason).

var testLoss = sidecarLoss{sidecar: "db-proxy", ready: "/shared/db-proxy.ready"}

func pendingMainConfig() Config {
	cfg := testConfig(ModeMain)
	cfg.StopSignal = unix.SIGINT // told apart from a forwarded SIGTERM
	return cfg
}

func TestPendingExitWinsOverSidecarLoss(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		r := newRig(t, pendingMainConfig())
		c, release := heldLoop(t, r)
		c.exited <- exitedWith(0)
		r.e.lost <- testLoss
		release()
		r.wantOutcome(0, "exited")
		r.noneSent()
	})
}

func TestPendingTerminationSignalWinsOverSidecarLoss(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		r := newRig(t, pendingMainConfig())
		c, release := heldLoop(t, r)
		r.signal(unix.SIGTERM)
		r.e.lost <- testLoss
		release()
		r.wantSent(c.Pid, unix.SIGTERM) // forwarded: the main stops on its own signal
		c.exited <- killedBy(unix.SIGTERM)
		r.wantOutcome(143, "signaled")
		r.noneSent() // no stop signal for the loss
	})
}

// The loss outranks nothing else while CMD runs: alone, it stops CMD.
func TestPendingSidecarLossAlone(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		r := newRig(t, pendingMainConfig())
		c, release := heldLoop(t, r)
		r.e.lost <- testLoss
		release()
		r.wantSent(c.Pid, unix.SIGINT)
		c.exited <- exitedWith(0)
		r.wantOutcome(1, "sidecar-lost")
	})
}

// blockOn is a log writer that holds the writing goroutine inside the line
// containing marker until release is closed.
type blockOn struct {
	marker  []byte
	held    chan struct{}
	release chan struct{}
}

func (b *blockOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, b.marker) {
		close(b.held)
		<-b.release
	}
	return len(p), nil
}

// heldWait runs a main waiting for cond and parks its wait inside the
// handling of an ignored SIGUSR1; release lets it go on.
func heldWait(t *testing.T, cond string) (r *rig, release func()) {
	t.Helper()
	never, err := probe.Parse(cond)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pendingMainConfig()
	cfg.Main.WaitFor, cfg.Main.WaitTimeout, cfg.Main.WaitInterval = []probe.Condition{never}, time.Hour, 10*time.Millisecond
	b := &blockOn{marker: []byte("signal ignored"), held: make(chan struct{}), release: make(chan struct{})}
	cfg.Log = zerolog.New(b)
	r = newRig(t, cfg).run()
	r.signal(unix.SIGUSR1)
	<-b.held
	return r, func() {
		synctest.Wait()
		close(b.release)
	}
}

// During the wait: a signal that ends tandem, pending with a loss, wins:
// the main was interrupted.
func TestPendingSignalWinsOverSidecarLossWhileWaiting(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		r, release := heldWait(t, "file:/nonexistent/never")
		r.signal(unix.SIGTERM)
		r.e.lost <- testLoss
		release()
		r.wantOutcome(143, "interrupted")
	})
}

// During the wait: the conditions hold as the sidecar is lost: the loss
// wins, and CMD never starts.
func TestPendingSidecarLossWinsOverWaitEnd(t *testing.T) {
	inRounds(t, func(t *testing.T) {
		dir := t.TempDir()
		r, release := heldWait(t, "file:"+filepath.Join(dir, "ready"))
		if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the bubble's clock: the probe's next round sees the file
		r.e.lost <- testLoss
		release()
		r.wantOutcome(1, "sidecar-lost")
		select {
		case <-r.f.starts:
			t.Fatal("CMD started without its sidecar")
		default:
		}
	})
}
