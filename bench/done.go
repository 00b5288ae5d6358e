package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// doneTarget is one way of stopping CMD once the main is done, measured
// from the trigger (the rename of the done file, the start of `tandem done`,
// the signal) to CMD gone and to the wrapper gone.
type doneTarget struct {
	name string
	runs int
	// start launches the wrapper in dir. The first line on its stdout is
	// CMD's pid, or the wrapper's own when it has no CMD (the floors).
	start   func(dir string, run int) (*proc, error)
	hasCMD  bool
	trigger func(rc *runCtx) (t0 time.Time, cleanup func(), err error)
	// attach, when set, starts the main that holds the done file's lifeline
	// once CMD runs, and returns when the sidecar is attached to it.
	attach func(rc *runCtx) (*mainHolder, error)
	// origin, when set, is the true t0, taken by the main itself and read
	// after the run, with how long the main's own part took (mainTook, run
	// by run beside cmdGone).
	origin   func(rc *runCtx) (t0 time.Time, mainTook time.Duration, err error)
	mainTook []time.Duration
	// source is what a tandem sidecar's done-seen line must say; a run that
	// stopped for another reason failed. "" for the other wrappers.
	source string
	// phase is a random wait before the trigger, for polling loops whose
	// latency depends on where in the period the file appears.
	phase time.Duration
	// settle overrides the idle wait before the trigger.
	settle time.Duration
	// timeMain: also time the main's own exit (a killed main: the kernel's part).
	timeMain bool

	mainGone []time.Duration

	cmdGone, exited []time.Duration
	failed          int
}

// settle lets a freshly started wrapper go idle (its threads parked) before
// the trigger, as it is when the main finishes long after the start.
const settle = 10 * time.Millisecond

const doneTemp, doneName = "done.tmp", "done"

// doneJSON is a done file as `tandem main` writes it (SPEC, Files).
const doneJSON = `{"version":1,"name":"bench","event":"done","exitCode":0,"signal":"","reason":"exited","time":"2026-11-30T06:22:52.258974522Z"}` + "\n"

func (b *bench) benchDone() {
	renameDone := func(rc *runCtx) (time.Time, func(), error) {
		t0 := time.Now()
		err := os.Rename(filepath.Join(rc.dir, doneTemp), filepath.Join(rc.dir, doneName))
		return t0, func() {}, err
	}
	signalWrapper := func(rc *runCtx) (time.Time, func(), error) {
		t0 := time.Now()
		return t0, func() {}, unix.Kill(rc.wrapper.pid(), unix.SIGUSR2)
	}
	sidecarName := func(run int) string { return fmt.Sprintf("bench-%d-%d", os.Getpid(), run) }
	// CMD says its pid, then becomes a single-threaded `sleep` that dies on
	// SIGTERM's default action, in the kernel, at once: the figures are the
	// wrapper's, not CMD's. (A Go CMD would add its own exit, about what the
	// signal floor below measures.)
	helperCmd := []string{"/bin/sh", "-c", "echo $$; exec sleep 1000"}
	tandemSidecar := func(dir string, run int, extra ...string) (*proc, error) {
		argv := []string{b.tandem.path, "sidecar", "--name", sidecarName(run)}
		argv = append(append(argv, extra...), "--")
		return startLogged(append(argv, helperCmd...), dir)
	}
	doneFileSidecar := func(dir string, run int) (*proc, error) {
		return tandemSidecar(dir, run, "--done-file", filepath.Join(dir, doneName))
	}
	shellLoop := func(period string) func(string, int) (*proc, error) {
		return func(dir string, _ int) (*proc, error) {
			// The wrapper from the seeds, CMD in the background.
			script := fmt.Sprintf("%s & PID=$!; while true; do [ -f %s ] && kill $PID && exit 0; sleep %s; done",
				shellQuote(helperCmd), doneName, period)
			return startProc([]string{"/bin/sh", "-c", script}, procOptions{dir: dir})
		}
	}
	tandemT := &doneTarget{name: "tandem sidecar --done-file", runs: b.cfg.doneRuns, hasCMD: true, trigger: renameDone,
		start: doneFileSidecar, source: "done-file"}
	floorT := &doneTarget{name: "kernel floor: Go program holding one inotify watch", runs: b.cfg.doneRuns, trigger: renameDone,
		start: func(dir string, _ int) (*proc, error) {
			return startProc(helperArgv(b.self, "floor-inotify", dir, doneName), procOptions{dir: dir})
		}}
	floorKillT := &doneTarget{name: "floor: minimal Go supervisor (inotify read → kill, nothing else)", runs: b.cfg.doneRuns,
		hasCMD: true, trigger: renameDone,
		start: func(dir string, _ int) (*proc, error) {
			argv := append(helperArgv(b.self, "floor-inotify-kill", dir, doneName), helperCmd...)
			return startProc(argv, procOptions{dir: dir})
		}}
	shellFast := &doneTarget{name: "shell loop, sleep 0.1", runs: b.cfg.shellFastRuns, hasCMD: true, trigger: renameDone,
		start: shellLoop("0.1"), phase: 100 * time.Millisecond}
	shellSlow := &doneTarget{name: "shell loop, sleep 2", runs: b.cfg.shellSlowRuns, hasCMD: true, trigger: renameDone,
		start: shellLoop("2"), phase: 2 * time.Second}
	sigT := &doneTarget{name: "direct SIGUSR2 to tandem sidecar", runs: b.cfg.peerSignalRuns, hasCMD: true, trigger: signalWrapper,
		source: "done-signal", start: func(dir string, run int) (*proc, error) { return tandemSidecar(dir, run) }}
	sigFloor := &doneTarget{name: "floor: Go program that exits on SIGUSR2 (no watch)", runs: b.cfg.peerSignalRuns, trigger: signalWrapper,
		start: func(dir string, _ int) (*proc, error) {
			return startProc(helperArgv(b.self, "floor-signal"), procOptions{dir: dir})
		}}
	lostT, lostFloorT, attachedT := b.lifelineTargets(doneFileSidecar, helperCmd)
	targets := []*doneTarget{tandemT, attachedT, lostT, lostFloorT, floorT, floorKillT, shellFast, shellSlow, sigT, sigFloor}
	var peerDone *doneTarget
	if filepath.Base(b.tandem.path) == "tandem" {
		peerDone = &doneTarget{name: "`tandem done --peer NAME`", runs: b.cfg.peerSignalRuns, hasCMD: true,
			source: "done-signal", start: func(dir string, run int) (*proc, error) { return tandemSidecar(dir, run) },
			trigger: func(rc *runCtx) (time.Time, func(), error) {
				// A name of our own: other people's sidecars on this
				// machine must not be stopped by the bench.
				done := exec.Command(b.tandem.path, "done", "--peer", sidecarName(rc.run), "--peer-timeout", "5s")
				done.Dir, done.Env = rc.dir, cleanEnv()
				t0 := time.Now()
				err := done.Start()
				return t0, func() {
					if err == nil {
						_ = done.Wait()
					}
				}, err
			}}
		targets = append(targets, peerDone)
	}

	rounds := 0
	for _, t := range targets {
		rounds = max(rounds, t.runs)
	}
	// Interleaved, so that a burst of load from the neighbours lands on
	// every target alike rather than on whichever ran at that moment.
	for i := range rounds {
		for _, t := range targets {
			if spread(i, t.runs, rounds) {
				b.doneRun(t, i)
			}
		}
	}

	const (
		secGone   = "1a. done file renamed into place → CMD gone (has exited)"
		secExited = "1b. done file renamed → wrapper exited (CMD gone and the init itself gone)"
		secSignal = "1c. shared PID namespace: done signal → CMD gone / tandem exited"
	)
	tGone, tExit := summarize(tandemT.cmdGone), summarize(tandemT.exited)
	add := b.addTiming
	add(secGone, tandemT.name, tGone, tandemT.failed, tGone, "target ≤ 0.5 ms median")
	b.attachedGoneRow(secGone, attachedT, tGone)
	add(secGone, floorKillT.name, summarize(floorKillT.cmdGone), floorKillT.failed, tGone,
		"what any Go supervisor pays: event wake-up, kill, CMD's exit")
	for _, t := range []*doneTarget{shellFast, shellSlow} {
		add(secGone, t.name, summarize(t.cmdGone), t.failed, tGone, "")
	}
	floor := summarize(floorT.exited)
	add(secExited, tandemT.name, tExit, tandemT.failed, tExit,
		fmt.Sprintf("%s the kernel floor (median); target ≤ 1 ms over; %s", overUnder(tExit.median-floor.median), fastShare(tandemT.exited)))
	b.attachedExitedRow(secExited, attachedT, tExit, floor)
	add(secExited, floorT.name, floor, floorT.failed, tExit,
		"exits holding the watch: the kernel's inotify teardown; "+fastShare(floorT.exited))
	add(secExited, floorKillT.name, summarize(floorKillT.exited), floorKillT.failed, tExit,
		"kills CMD, reaps it, exits holding the watch; "+fastShare(floorKillT.exited))
	for _, t := range []*doneTarget{shellFast, shellSlow} {
		add(secExited, t.name, summarize(t.exited), t.failed, tExit, "sh exits right after its kill, without waiting for CMD")
	}
	sFloor := summarize(sigFloor.exited)
	if peerDone != nil {
		add(secSignal, peerDone.name+" → CMD gone", summarize(peerDone.cmdGone), peerDone.failed, summary{},
			"includes starting `tandem done` and its /proc scan")
		add(secSignal, peerDone.name+" → tandem exited", summarize(peerDone.exited), peerDone.failed, summary{}, "")
	}
	add(secSignal, sigT.name+" → CMD gone", summarize(sigT.cmdGone), sigT.failed, summary{}, "")
	sExit := summarize(sigT.exited)
	add(secSignal, sigT.name+" → tandem exited", sExit, sigT.failed, summary{},
		fmt.Sprintf("%s the floor below (median)", overUnder(sExit.median-sFloor.median)))
	add(secSignal, sigFloor.name, sFloor, sigFloor.failed, sExit, "ratio: tandem exited ÷ floor")
	b.lostRows(lostT, lostFloorT)
}

// addTiming adds a row of a series; ratioTo is tandem's figure it is
// compared with (none when empty).
func (b *bench) addTiming(sec, subject string, s summary, failed int, ratioTo summary, note string) {
	s.failed = failed
	r := timingRow(sec, subject, s, note)
	if ratioTo.n > 0 && s.n > 0 {
		r.ratio = fmtRatio(float64(ratioTo.median), float64(s.median))
	}
	b.rows = append(b.rows, r)
}

// startLogged starts a tandem sidecar in dir with its log in dir/sidecarLog.
func startLogged(argv []string, dir string) (*proc, error) {
	log, err := os.Create(filepath.Join(dir, sidecarLog))
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child has its own copy
	return startProc(argv, procOptions{dir: dir, stderr: log})
}

// fastShare: the inotify teardown is bimodal (about 0.5 ms, or 5 to 20 ms),
// so a median flips between the modes; the share of fast exits says which.
func fastShare(d []time.Duration) string {
	fast := 0
	for _, x := range d {
		if x < 2*time.Millisecond {
			fast++
		}
	}
	if len(d) == 0 {
		return "no runs"
	}
	return fmt.Sprintf("%d%% of runs under 2 ms", 100*fast/len(d))
}

// overUnder says how far tandem is from a floor, in words.
func overUnder(d time.Duration) string {
	if d < 0 {
		return fmtDur(-d) + " under"
	}
	return fmtDur(d) + " over"
}
