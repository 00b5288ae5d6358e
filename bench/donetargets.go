package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// doneTargets are the subjects of section 1, by name for the rows.
type doneTargets struct {
	tandem, attached, lost, lostFloor   *doneTarget
	floor, floorKill, shellFast, shell2 *doneTarget
	sig, sigFloor, peerDone             *doneTarget // peerDone: nil when it cannot run
}

// all is every target in the order they take turns.
func (ts *doneTargets) all() []*doneTarget {
	list := []*doneTarget{ts.tandem, ts.attached, ts.lost, ts.lostFloor, ts.floor, ts.floorKill,
		ts.shellFast, ts.shell2, ts.sig, ts.sigFloor}
	if ts.peerDone != nil {
		list = append(list, ts.peerDone)
	}
	return list
}

// doneCMD says its pid, then becomes a single-threaded `sleep` that dies on
// SIGTERM's default action, in the kernel, at once: the figures are the
// wrapper's, not CMD's. (A Go CMD would add its own exit, about what the
// signal floor measures.)
var doneCMD = []string{"/bin/sh", "-c", "echo $$; exec sleep 1000"}

func renameDone(rc *runCtx) (time.Time, func(), error) {
	t0 := time.Now()
	err := os.Rename(filepath.Join(rc.dir, doneTemp), filepath.Join(rc.dir, doneName))
	return t0, func() {}, err
}

func signalWrapper(rc *runCtx) (time.Time, func(), error) {
	t0 := time.Now()
	return t0, func() {}, unix.Kill(rc.wrapper.pid(), unix.SIGUSR2)
}

// sidecarName is a name of our own: other people's sidecars on this
// machine must not be stopped by the bench's `tandem done --peer`.
func sidecarName(run int) string { return fmt.Sprintf("bench-%d-%d", os.Getpid(), run) }

// tandemSidecar starts `tandem sidecar [extra] -- doneCMD` in dir, its log
// in dir/sidecarLog.
func (b *bench) tandemSidecar(dir string, run int, extra ...string) (*proc, error) {
	argv := []string{b.tandem.path, "sidecar", "--name", sidecarName(run)}
	argv = append(append(append(argv, extra...), "--"), doneCMD...)
	log, err := os.Create(filepath.Join(dir, sidecarLog))
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child has its own copy
	return startProc(argv, procOptions{dir: dir, stderr: log})
}

func (b *bench) doneFileSidecar(dir string, run int) (*proc, error) {
	return b.tandemSidecar(dir, run, "--done-file", filepath.Join(dir, doneName))
}

// helperIn starts, in dir, the helper that args(dir) names.
func (b *bench) helperIn(args func(dir string) []string) func(string, int) (*proc, error) {
	return func(dir string, _ int) (*proc, error) {
		return startProc(helperArgv(b.self, args(dir)...), procOptions{dir: dir})
	}
}

// shellLoop is the shell loop tandem replaces, CMD in the background.
func shellLoop(period string) func(string, int) (*proc, error) {
	return func(dir string, _ int) (*proc, error) {
		script := fmt.Sprintf("%s & PID=$!; while true; do [ -f %s ] && kill $PID && exit 0; sleep %s; done",
			shellQuote(doneCMD), doneName, period)
		return startProc([]string{"/bin/sh", "-c", script}, procOptions{dir: dir})
	}
}

func (b *bench) newDoneTargets() *doneTargets {
	ts := &doneTargets{}
	n := b.cfg.doneRuns
	ts.tandem = &doneTarget{name: "tandem sidecar --done-file", runs: n, hasCMD: true, trigger: renameDone,
		start: b.doneFileSidecar, source: "done-file"}
	ts.lost, ts.lostFloor, ts.attached = b.lifelineTargets(b.doneFileSidecar)
	ts.floor = &doneTarget{name: "Go program exiting with one inotify watch held", runs: n, trigger: renameDone,
		start: b.helperIn(func(dir string) []string { return []string{"floor-inotify", dir, doneName} })}
	ts.floorKill = &doneTarget{name: "floor: minimal Go supervisor (inotify read → kill → remove the watch, nothing else)", runs: n,
		hasCMD: true, trigger: renameDone, start: b.helperIn(func(dir string) []string {
			return append([]string{"floor-inotify-kill", dir, doneName}, doneCMD...)
		})}
	ts.shellFast = &doneTarget{name: "shell loop, sleep 0.1", runs: b.cfg.shellFastRuns, hasCMD: true, trigger: renameDone,
		start: shellLoop("0.1"), phase: 100 * time.Millisecond}
	ts.shell2 = &doneTarget{name: "shell loop, sleep 2", runs: b.cfg.shellSlowRuns, hasCMD: true, trigger: renameDone,
		start: shellLoop("2"), phase: 2 * time.Second}
	plainSidecar := func(dir string, run int) (*proc, error) { return b.tandemSidecar(dir, run) }
	ts.sig = &doneTarget{name: "direct SIGUSR2 to tandem sidecar", runs: b.cfg.peerSignalRuns, hasCMD: true,
		trigger: signalWrapper, source: "done-signal", start: plainSidecar}
	ts.sigFloor = &doneTarget{name: "floor: Go program that exits on SIGUSR2 (no watch)", runs: b.cfg.peerSignalRuns,
		trigger: signalWrapper, start: b.helperIn(func(string) []string { return []string{"floor-signal"} })}
	if filepath.Base(b.tandem.path) == "tandem" {
		ts.peerDone = &doneTarget{name: "`tandem done --peer NAME`", runs: b.cfg.peerSignalRuns, hasCMD: true,
			source: "done-signal", start: plainSidecar, trigger: b.peerDoneTrigger}
	}
	return ts
}

// peerDoneTrigger runs `tandem done --peer` for this run's sidecar; t0 is
// taken right before it starts, so its own start-up is in the figure.
func (b *bench) peerDoneTrigger(rc *runCtx) (time.Time, func(), error) {
	done := exec.Command(b.tandem.path, "done", "--peer", sidecarName(rc.run), "--peer-timeout", "5s")
	done.Dir, done.Env = rc.dir, cleanEnv()
	t0 := time.Now()
	err := done.Start()
	return t0, func() {
		if err == nil {
			_ = done.Wait()
		}
	}, err
}
