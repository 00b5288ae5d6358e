package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
)

// attachSettle is the idle wait once a sidecar is attached: it closed its
// inotify instance, whose teardown in the kernel (up to ~20 ms, see 1b)
// must be over before the trigger.
const attachSettle = 50 * time.Millisecond

// mainHolder is the main holding a done file's lifeline, and the CMD it
// runs: outside a PID namespace a SIGKILLed `tandem main` leaves its CMD
// behind, killed here after the run.
type mainHolder struct {
	p      *proc
	cmdFDs []int
}

func (m *mainHolder) kill() {
	for _, fd := range m.cmdFDs {
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		unix.Close(fd)
	}
	m.p.kill()
}

// lifelineTargets are the sidecars whose main holds the lifeline: lost, a
// real `tandem main` SIGKILLed (as PID 1 of its own PID namespace, as in a
// container, when the bench may create one), and its floor, a minimal
// watcher of the same; attached, a helper that ends as `tandem main` does
// (done file written, then the lifeline released).
func (b *bench) lifelineTargets(sidecar func(dir string, run int) (*proc, error)) (lost, lostFloor, attached *doneTarget) {
	sys, err := pidNamespace()
	b.mainIsPID1 = err == nil
	lostName := "main = `tandem main`, PID 1 of a new PID namespace, SIGKILLed"
	if err != nil {
		lostName = "main = `tandem main`, a plain child (no PID namespace), SIGKILLed"
		b.note(fmt.Sprintf("main killed: cannot create a PID namespace (%v); `tandem main` runs as a plain child instead", err))
	}
	killMain := func(rc *runCtx) (time.Time, func(), error) {
		t0 := time.Now()
		return t0, func() {}, unix.PidfdSendSignal(rc.main.p.pidfd, unix.SIGKILL, nil, 0)
	}
	lost = &doneTarget{name: lostName, runs: b.cfg.doneRuns, hasCMD: true, start: sidecar, source: "lost",
		attach: b.attachTandemMain(sys), settle: attachSettle, trigger: killMain, timeMain: true}
	lostFloor = &doneTarget{name: "floor: minimal Go watcher (blocking read on the lifeline → kill, nothing else)",
		runs: b.cfg.doneRuns, hasCMD: true, attach: b.attachTandemMain(sys), settle: attachSettle, trigger: killMain,
		start: func(dir string, _ int) (*proc, error) {
			argv := append(helperArgv(b.self, "floor-lifeline-kill", lifeline.Of(filepath.Join(dir, doneName))), doneCMD...)
			return startProc(argv, procOptions{dir: dir})
		}}
	attached = &doneTarget{name: "tandem sidecar --done-file, main attached (lifeline)", runs: b.cfg.doneRuns,
		hasCMD: true, start: sidecar, source: "done-file", attach: b.attachHelperMain, settle: attachSettle,
		trigger: func(rc *runCtx) (time.Time, func(), error) {
			t0 := time.Now()
			_, err := rc.main.p.in.Write([]byte{'!'})
			return t0, func() {}, err
		},
		origin: func(rc *runCtx) (time.Time, time.Duration, error) {
			line, err := readLine(rc.main.p.out, time.Now().Add(5*time.Second))
			if err != nil {
				return time.Time{}, 0, fmt.Errorf("read t0: %w (got %q)", err, line)
			}
			return parseMainTimes(line)
		}}
	return lost, lostFloor, attached
}

// attachTandemMain starts `tandem main --done-file DIR/done -- sleep 1000`
// (in a new PID namespace when sys says so) and waits until its CMD runs
// and the sidecar is attached.
func (b *bench) attachTandemMain(sys *syscall.SysProcAttr) func(rc *runCtx) (*mainHolder, error) {
	return func(rc *runCtx) (*mainHolder, error) {
		done := filepath.Join(rc.dir, doneName)
		argv := []string{b.tandem.path, "main", "--done-file", done, "--", "sleep", "1000"}
		p, err := startProc(argv, procOptions{dir: rc.dir, sys: sys})
		if err != nil {
			return nil, fmt.Errorf("start tandem main: %w", err)
		}
		m := &mainHolder{p: p}
		deadline := time.Now().Add(10 * time.Second)
		for {
			kids, err := children(p.pid())
			if err == nil && len(kids) > 0 {
				for _, k := range kids {
					if fd, err := unix.PidfdOpen(k, 0); err == nil {
						m.cmdFDs = append(m.cmdFDs, fd)
					}
				}
				break
			}
			if time.Now().After(deadline) {
				return m, fmt.Errorf("tandem main started no CMD in 10 s (%v)", err)
			}
			time.Sleep(time.Millisecond)
		}
		return m, waitAttached(rc.wrapper.pid(), lifeline.Of(done), deadline)
	}
}

// attachHelperMain starts the lifeline-main helper and waits until the
// sidecar is attached to it.
func (b *bench) attachHelperMain(rc *runCtx) (*mainHolder, error) {
	done := filepath.Join(rc.dir, doneName)
	p, err := startProc(helperArgv(b.self, "lifeline-main", done), procOptions{dir: rc.dir, stdinPipe: true})
	if err != nil {
		return nil, fmt.Errorf("start lifeline-main: %w", err)
	}
	m := &mainHolder{p: p}
	deadline := time.Now().Add(10 * time.Second)
	if line, err := readLine(p.out, deadline); err != nil || line != "held" {
		return m, fmt.Errorf("lifeline-main: %q, %v; want \"held\"", line, err)
	}
	return m, waitAttached(rc.wrapper.pid(), lifeline.Of(done), deadline)
}

// waitAttached waits until the sidecar pid has the lifeline open and no
// inotify instance left: attached, with nothing else to wake it.
func waitAttached(pid int, fifo string, deadline time.Time) error {
	var want unix.Stat_t
	if err := unix.Stat(fifo, &want); err != nil {
		return fmt.Errorf("lifeline %s: %w", fifo, err)
	}
	for {
		open, watching, err := fdState(pid, want)
		if err != nil {
			return fmt.Errorf("sidecar %d: %w", pid, err)
		}
		if open && !watching {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sidecar %d not attached to %s in time (FIFO open: %v, inotify held: %v)",
				pid, fifo, open, watching)
		}
		time.Sleep(time.Millisecond)
	}
}

// fdState reports whether pid has the file want open, and whether it holds
// an inotify instance, from /proc/PID/fd.
func fdState(pid int, want unix.Stat_t) (open, inotify bool, err error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, false, err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if target, err := os.Readlink(path); err == nil && target == "anon_inode:inotify" {
			inotify = true
			continue
		}
		var st unix.Stat_t
		if unix.Stat(path, &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino {
			open = true
		}
	}
	return open, inotify, nil
}

const secLost = "1d. main's container killed outright (SIGKILL to the main's tandem) → sidecar's CMD gone / sidecar tandem exited"

func (b *bench) attachedGoneRow(sec string, t *doneTarget, tGone summary) {
	b.addTiming(sec, t.name, summarize(t.cmdGone), t.failed, tGone,
		"t0 taken by the main itself, right before it writes the done file (statusfile.Write) and releases its lifeline: "+mainNote(t))
}

func (b *bench) attachedExitedRow(sec string, t *doneTarget, tExit, floor summary) {
	s := summarize(t.exited)
	b.addTiming(sec, t.name, s, t.failed, tExit,
		fmt.Sprintf("goal ≤ 2 ms median; %s the program exiting with its watch held (median); %s",
			overUnder(s.median-floor.median), fastShare(t.exited)))
}

func (b *bench) lostRows(t, floor *doneTarget) {
	gone, exited := summarize(t.cmdGone), summarize(t.exited)
	b.headline(headline{order: headLostGone, figure: "main killed outright → sidecar's CMD gone", tandem: gone,
		reference: "minimal Go watcher", ref: summarize(floor.cmdGone), goal: "keep ≤ 1.1×"})
	b.addTiming(secLost, t.name+" → CMD gone", gone, t.failed, gone,
		"goal ≤ 1 ms median; t0 right before the SIGKILL")
	b.addTiming(secLost, floor.name+" → CMD gone", summarize(floor.cmdGone), floor.failed, gone,
		"what any watcher pays: the main's death in the kernel, the wake-up, kill, CMD's exit")
	b.addTiming(secLost, t.name+" → tandem exited", exited, t.failed, exited,
		"every run checked: done-seen source lost, exit 0")
	b.addTiming(secLost, floor.name+" → exited", summarize(floor.exited), floor.failed, exited, "")
	note := "its FIFO is closed on the way"
	if b.mainIsPID1 {
		note = "a PID 1 is a zombie only once the kernel has killed the rest of its namespace; its FIFO closed before that"
	}
	b.addTiming(secLost, "the main's tandem itself → gone (a zombie)", summarize(t.mainGone), t.failed, summary{}, note)
}

// parseMainTimes reads the line of lifelineMain: t0 and the moment the
// lifeline was released, in unix nanoseconds.
func parseMainTimes(line string) (time.Time, time.Duration, error) {
	f := strings.Fields(line)
	if len(f) != 2 {
		return time.Time{}, 0, fmt.Errorf("main's times %q: want two unix-nanosecond stamps", line)
	}
	var ns [2]int64
	for i := range f {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return time.Time{}, 0, fmt.Errorf("main's times %q: %w", line, err)
		}
		ns[i] = n
	}
	if ns[1] < ns[0] {
		return time.Time{}, 0, fmt.Errorf("main's times %q: released before t0", line)
	}
	return time.Unix(0, ns[0]), time.Duration(ns[1] - ns[0]), nil
}

// mainNote splits the figure: the main's write and release, then the
// sidecar's part, from the release to CMD gone (medians, run by run).
func mainNote(t *doneTarget) string {
	if len(t.mainTook) == 0 || len(t.mainTook) != len(t.cmdGone) {
		return "no runs"
	}
	after := make([]time.Duration, len(t.cmdGone))
	for i := range after {
		after[i] = t.cmdGone[i] - t.mainTook[i]
	}
	return fmt.Sprintf("the main's write and release %s, then release → CMD gone %s (medians)",
		fmtDur(summarize(t.mainTook).median), fmtDur(summarize(after).median))
}
