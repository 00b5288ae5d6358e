package supervisor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// These tests play the needed sidecar with a real lifeline held in this
// process: Release is its tandem ending. The engine's loop runs with the
// fakes.

// sidecarHolds plays `tandem sidecar --ready-file R`: it holds R's lifeline
// and, when ready, writes R under the sidecar's name.
func sidecarHolds(t *testing.T, ready string, written bool) *lifeline.Holder {
	t.Helper()
	h, err := lifeline.Hold(lifeline.Of(ready), statusfile.Hostname())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Release)
	if written {
		writeReady(t, ready)
	}
	return h
}

func writeReady(t *testing.T, ready string) {
	t.Helper()
	if err := statusfile.Write(ready, statusfile.File{Name: "db-proxy", Event: statusfile.EventReady, Reason: statusfile.ReasonReady}); err != nil {
		t.Fatal(err)
	}
}

func needsConfig(t *testing.T, readyFiles ...string) (Config, *logEvents) {
	cfg := mainConfig(t, func(m *MainConfig) { m.Needs, m.WaitInterval = readyFiles, 10*time.Millisecond })
	cfg.StopSignal, cfg.Grace = unix.SIGINT, 3*time.Second // told apart from a forwarded SIGTERM
	logs, log := newLogEvents(t)
	cfg.Log = log
	return cfg, logs
}

// Lost while CMD runs: the stop signal, the done file and the outcome say
// sidecar-lost, with CMD's code, or 1 when that is 0.
func TestNeedsLostWhileRunning(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status process.Status
		code   int
	}{
		{"CMD dies of the stop signal", killedBy(unix.SIGINT), 130},
		{"CMD exits 0 on the stop signal", exitedWith(0), 1},
		{"CMD exits 3 on the stop signal", exitedWith(3), 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ready := filepath.Join(t.TempDir(), "db-proxy.ready")
			h := sidecarHolds(t, ready, true)
			cfg, logs := needsConfig(t, ready)
			r := newRig(t, cfg).run()
			c := r.child()
			h.Release()
			r.wantSent(c.Pid, unix.SIGINT)
			line, _ := logs.want("sidecar-lost")
			if line["sidecar"] != "db-proxy" || line["ready_file"] != ready || line["level"] != "error" {
				t.Errorf("sidecar-lost line %v: want the sidecar's name and its ready file", line)
			}
			c.exited <- tt.status
			if f := r.wantWrite("done:" + cfg.Main.DoneFile); f.Reason != "sidecar-lost" || f.ExitCode != tt.code {
				t.Errorf("done file %+v, want sidecar-lost %d", f, tt.code)
			}
			out := r.wantOutcome(tt.code, "sidecar-lost")
			if out.err == nil || !strings.Contains(out.err.Error(), `"db-proxy"`) || !strings.Contains(out.err.Error(), ready) {
				t.Errorf("error %v: want the sidecar and its ready file named (termination message)", out.err)
			}
		})
	}
}

// A CMD that ignores the stop signal is killed after --grace.
func TestNeedsLostStopSequence(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "db-proxy.ready")
	h := sidecarHolds(t, ready, true)
	cfg, _ := needsConfig(t, ready)
	r := newRig(t, cfg).run()
	c := r.child()
	h.Release()
	r.wantSent(c.Pid, unix.SIGINT)
	r.fire(3 * time.Second)
	r.wantSent(c.Pid, unix.SIGKILL)
	c.exited <- killedBy(unix.SIGKILL)
	r.wantOutcome(137, "sidecar-lost")
}

// The main already stopping on its own termination signal: a sidecar lost
// meanwhile is said, and changes nothing (no stop signal, CMD's reason).
func TestNeedsLostWhileMainStopping(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "db-proxy.ready")
	h := sidecarHolds(t, ready, true)
	cfg, logs := needsConfig(t, ready)
	r := newRig(t, cfg).run()
	c := r.child()
	r.signal(unix.SIGTERM)
	r.wantSent(c.Pid, unix.SIGTERM)
	r.wantWrite("terminating:" + markPath(cfg.Main.DoneFile))
	h.Release()
	if line, _ := logs.want("sidecar-lost"); line["level"] != "info" {
		t.Errorf("sidecar-lost %v, want the info line of a main already stopping", line)
	}
	c.exited <- killedBy(unix.SIGTERM)
	if f := r.wantWrite("done:" + cfg.Main.DoneFile); f.Reason != "signaled" {
		t.Errorf("done file %+v, want CMD's own reason", f)
	}
	r.wantOutcome(143, "signaled")
	r.noneSent()
}

// Lost during the wait: CMD never starts, the main ends at once (the wait
// timeout is an hour), exit 1.
func TestNeedsLostWhileWaiting(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "db-proxy.ready")
	h := sidecarHolds(t, ready, false)
	cfg, logs := needsConfig(t, ready)
	cfg.Main.WaitTimeout = time.Hour
	r := newRig(t, cfg).run()
	logs.want("sidecar-attached")
	h.Release()
	if f := r.wantWrite("done:" + cfg.Main.DoneFile); f.Reason != "sidecar-lost" || f.ExitCode != 1 {
		t.Errorf("done file %+v, want sidecar-lost 1", f)
	}
	r.wantOutcome(1, "sidecar-lost")
	if line, _ := logs.want("sidecar-lost"); line["sidecar"] != "db-proxy" {
		t.Errorf("sidecar-lost line %v: want the name from the ready file's base name", line)
	}
	select {
	case <-r.f.starts:
		t.Fatal("CMD started without its sidecar")
	default:
	}
}

// A lifeline with no holder (its sidecar killed earlier, its ready file
// left) is no loss: the main waits for the next sidecar and a ready file
// written anew, within --wait-timeout.
func TestNeedsStaleSidecarWaits(t *testing.T) {
	stale := func(t *testing.T) string {
		ready := filepath.Join(t.TempDir(), "db-proxy.ready")
		if err := unix.Mkfifo(lifeline.Of(ready), 0o666); err != nil {
			t.Fatal(err)
		}
		// This pod's, not another's: an mtime whose nanoseconds are a
		// multiple of 1000 reads as another pod's tag (lifeline.Watch),
		// which mkfifo(2) gives about one time in a thousand.
		at := time.Unix(time.Now().Unix(), 1)
		if err := os.Chtimes(lifeline.Of(ready), at, at); err != nil {
			t.Fatal(err)
		}
		writeReady(t, ready)
		return ready
	}
	t.Run("the next sidecar comes", func(t *testing.T) {
		ready := stale(t)
		cfg, logs := needsConfig(t, ready)
		r := newRig(t, cfg).run()
		logs.want("waiting")
		if line, _ := logs.want("waiting"); line["path"] != ready {
			t.Fatalf("line %v: want the wait for the next sidecar", line)
		}
		if err := os.Remove(ready); err != nil { // as the next sidecar does, before it holds
			t.Fatal(err)
		}
		sidecarHolds(t, ready, false)
		logs.want("sidecar-attached")
		writeReady(t, ready)
		r.child().exited <- exitedWith(0)
		r.wantOutcome(0, "exited")
	})
	t.Run("none comes", func(t *testing.T) {
		ready := stale(t)
		cfg, _ := needsConfig(t, ready)
		cfg.Main.WaitTimeout = 100 * time.Millisecond
		r := newRig(t, cfg).run()
		out := r.wantOutcome(1, "wait-timeout")
		if !strings.Contains(out.err.Error(), "needs:"+ready) {
			t.Errorf("error %v: want the missing ready file named", out.err)
		}
	})
}

// A ready file written by something that is not `tandem sidecar`: waited
// for, said once, and CMD runs.
func TestNeedsWithoutLifeline(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "db-proxy.ready")
	writeReady(t, ready)
	cfg, logs := needsConfig(t, ready)
	r := newRig(t, cfg).run()
	c := r.child()
	line, _ := logs.want("needs-without-lifeline")
	if line["path"] != ready || line["level"] != "warn" {
		t.Errorf("line %v", line)
	}
	c.exited <- exitedWith(0)
	r.wantOutcome(0, "exited")
	if _, before := logs.end(cfg.Log); countEvent(before, "needs-without-lifeline") != 0 {
		t.Error("needs-without-lifeline said more than once")
	}
}

func countEvent(lines []map[string]any, name string) (n int) {
	for _, l := range lines {
		if l["event"] == name {
			n++
		}
	}
	return n
}

// One main needing two sidecars: either lost stops CMD; the line names the
// one lost.
func TestNeedsTwoSidecars(t *testing.T) {
	dir := t.TempDir()
	proxy, cache := filepath.Join(dir, "db-proxy.ready"), filepath.Join(dir, "cache.ready")
	sidecarHolds(t, proxy, true)
	h := sidecarHolds(t, cache, true)
	cfg, logs := needsConfig(t, proxy, cache)
	r := newRig(t, cfg).run()
	c := r.child()
	h.Release()
	r.wantSent(c.Pid, unix.SIGINT)
	if line, _ := logs.want("sidecar-lost"); line["ready_file"] != cache {
		t.Errorf("line %v: want the lost one, %s", line, cache)
	}
	c.exited <- killedBy(unix.SIGINT)
	r.wantOutcome(130, "sidecar-lost")
}

// The main is done first: a sidecar that stops afterwards (it was asked to)
// is no loss; neither is one ending while the main announces.
func TestNeedsSidecarStopsAfterMainDone(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "db-proxy.ready")
	h := sidecarHolds(t, ready, true)
	cfg, logs := needsConfig(t, ready)
	r := newRig(t, cfg).run()
	r.child().exited <- exitedWith(0)
	r.wantWrite("done:" + cfg.Main.DoneFile)
	h.Release()
	r.wantOutcome(0, "exited")
	if _, before := logs.end(cfg.Log); countEvent(before, "sidecar-lost") != 0 {
		t.Error("a sidecar stopped after the main was done was reported lost")
	}
}

// A --needs that is the main's own done file, however spelled, is refused
// (a relative one is compared once absolute: TestSamePath).
func TestNeedsValidation(t *testing.T) {
	for _, tt := range []struct {
		needs []string
		want  string
	}{
		{[]string{""}, `--needs "": expected the path of a sidecar's ready file`},
		{[]string{"/run/tandem/"}, `--needs "/run/tandem/"`},
		{[]string{"/run/tandem/job.done"}, "the main's own --done-file"},
		{[]string{"/run/tandem//job.done"}, "the main's own --done-file"},
		{[]string{"/run/./tandem/job.done"}, "the main's own --done-file"},
	} {
		cfg := testConfig(ModeMain)
		cfg.Main.DoneFile, cfg.Main.Needs = "/run/tandem/job.done", tt.needs
		if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("needs %q: %v, want %q", tt.needs, err, tt.want)
		}
	}
}

// The sidecar's side: --ready-file holds READY_FILE.lifeline from the start
// (an earlier tandem's ready file removed first) through CMD's restarts,
// and lets go at the end.
func TestSidecarHoldsReadyLifeline(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "db-proxy.ready")
	writeReady(t, ready) // left by a tandem killed outright
	cfg := sidecarConfig(func(s *SidecarConfig) { s.ReadyFile, s.Restart = ready, RestartAlways })
	r := newRig(t, cfg).run()
	c := r.child()
	if _, err := os.Stat(ready); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier ready file is still there: %v", err)
	}
	line, err := lifeline.Watch(lifeline.Of(ready), statusfile.Hostname())
	if err != nil {
		t.Fatalf("lifeline while CMD runs: %v, want held", err)
	}
	defer line.Close()
	c.exited <- exitedWith(1)
	r.fire(time.Second)
	c = r.child()
	if !line.Same() {
		t.Error("the restart replaced the lifeline")
	}
	if again, err := lifeline.Watch(lifeline.Of(ready), statusfile.Hostname()); err != nil {
		t.Errorf("lifeline after CMD's restart: %v, want still held", err)
	} else {
		again.Close()
	}
	r.done()
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(0, "stopped")
	if err := line.Wait(); err != nil {
		t.Errorf("Wait after the end: %v, want released", err)
	}
	if _, err := os.Lstat(lifeline.Of(ready)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lifeline left after a normal end: %v", err)
	}
}
