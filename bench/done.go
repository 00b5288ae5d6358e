package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	trigger func(p *proc, dir string, run int) (t0 time.Time, cleanup func(), err error)
	// phase is a random wait before the trigger, for polling loops whose
	// latency depends on where in the period the file appears.
	phase time.Duration

	cmdGone, exited []time.Duration
	failed          int
}

// settle lets a freshly started wrapper go idle (its threads parked) before
// the trigger, as it is when the main finishes long after the start.
const settle = 10 * time.Millisecond

const doneTemp, doneName = "done.tmp", "done"

// doneJSON is a done file as `tandem main` writes it.
const doneJSON = `{"version":1,"name":"bench","event":"done","exitCode":0,"signal":"","reason":"exited","time":"2026-11-30T06:22:52.258974522Z"}` + "\n"

func (b *bench) benchDone() {
	renameDone := func(_ *proc, dir string, _ int) (time.Time, func(), error) {
		t0 := time.Now()
		err := os.Rename(filepath.Join(dir, doneTemp), filepath.Join(dir, doneName))
		return t0, func() {}, err
	}
	signalWrapper := func(p *proc, _ string, _ int) (time.Time, func(), error) {
		t0 := time.Now()
		return t0, func() {}, unix.Kill(p.pid(), unix.SIGUSR2)
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
		return startProc(append(argv, helperCmd...), procOptions{dir: dir})
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
		start: func(dir string, run int) (*proc, error) {
			return tandemSidecar(dir, run, "--done-file", filepath.Join(dir, doneName))
		}}
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
		start: func(dir string, run int) (*proc, error) { return tandemSidecar(dir, run) }}
	sigFloor := &doneTarget{name: "floor: Go program that exits on SIGUSR2 (no watch)", runs: b.cfg.peerSignalRuns, trigger: signalWrapper,
		start: func(dir string, _ int) (*proc, error) {
			return startProc(helperArgv(b.self, "floor-signal"), procOptions{dir: dir})
		}}
	targets := []*doneTarget{tandemT, floorT, floorKillT, shellFast, shellSlow, sigT, sigFloor}
	var peerDone *doneTarget
	if filepath.Base(b.tandem.path) == "tandem" {
		peerDone = &doneTarget{name: "`tandem done --peer NAME`", runs: b.cfg.peerSignalRuns, hasCMD: true,
			start: func(dir string, run int) (*proc, error) { return tandemSidecar(dir, run) },
			trigger: func(_ *proc, dir string, run int) (time.Time, func(), error) {
				// A name of our own: other people's sidecars on this
				// machine must not be stopped by the bench.
				done := exec.Command(b.tandem.path, "done", "--peer", sidecarName(run), "--peer-timeout", "5s")
				done.Dir, done.Env = dir, cleanEnv()
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
	add := func(sec, subject string, s summary, failed int, ratioTo summary, note string) {
		s.failed = failed
		r := timingRow(sec, subject, s, note)
		if ratioTo.n > 0 && s.n > 0 {
			r.ratio = fmtRatio(float64(ratioTo.median), float64(s.median))
		}
		b.rows = append(b.rows, r)
	}
	add(secGone, tandemT.name, tGone, tandemT.failed, tGone, "target ≤ 0.5 ms median")
	add(secGone, floorKillT.name, summarize(floorKillT.cmdGone), floorKillT.failed, tGone,
		"what any Go supervisor pays: event wake-up, kill, CMD's exit")
	for _, t := range []*doneTarget{shellFast, shellSlow} {
		add(secGone, t.name, summarize(t.cmdGone), t.failed, tGone, "")
	}
	floor := summarize(floorT.exited)
	add(secExited, tandemT.name, tExit, tandemT.failed, tExit,
		fmt.Sprintf("%s the kernel floor (median); target ≤ 1 ms over; %s", overUnder(tExit.median-floor.median), fastShare(tandemT.exited)))
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

// spread reports whether a target with n runs runs in round i of rounds,
// so that its runs are spread evenly over the whole benchmark.
func spread(i, n, rounds int) bool {
	return (i+1)*n/rounds > i*n/rounds
}

// doneRun is one measurement; a run that cannot be measured (the wrapper or
// CMD gone before the trigger, a timeout) counts as failed and is not
// retried, so the benchmark's length stays bounded.
func (b *bench) doneRun(t *doneTarget, run int) {
	fail := func(format string, args ...any) {
		t.failed++
		if t.failed <= 3 {
			b.progress("%s: run %d: %s", t.name, run, fmt.Sprintf(format, args...))
		}
	}
	dir, err := os.MkdirTemp(b.work, "done-")
	if err != nil {
		fail("%v", err)
		return
	}
	defer os.RemoveAll(dir)
	// The temporary file exists before the wrapper starts, so its creation
	// is not an event the wrapper is still digesting at the trigger.
	if err := os.WriteFile(filepath.Join(dir, doneTemp), []byte(doneJSON), 0o644); err != nil {
		fail("%v", err)
		return
	}
	p, err := t.start(dir, run)
	if err != nil {
		fail("start: %v", err)
		return
	}
	defer p.kill()
	deadline := time.Now().Add(10 * time.Second)
	pid, err := readPID(p.out, deadline)
	if err != nil {
		fail("%v", err)
		return
	}
	fds := []int{p.pidfd}
	if t.hasCMD {
		cmdFD, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			fail("pidfd_open CMD %d: %v", pid, err)
			return
		}
		defer unix.Close(cmdFD)
		fds = []int{cmdFD, p.pidfd}
		// The shell loops leave CMD behind; through the pidfd, the signal
		// cannot reach another process that reused its pid.
		defer func() { _ = unix.PidfdSendSignal(cmdFD, unix.SIGKILL, nil, 0) }()
	}
	wait := settle
	if t.phase > 0 {
		wait += rand.N(t.phase)
	}
	time.Sleep(wait)
	for _, fd := range fds {
		if exited(fd) {
			// e.g. someone's `tandem done --signal-peers` on this machine
			// stopped our sidecar.
			fail("stopped before the trigger")
			return
		}
	}
	t0, cleanup, err := t.trigger(p, dir, run)
	defer cleanup()
	if err != nil {
		fail("trigger: %v", err)
		return
	}
	timeout := 10 * time.Second
	if t.phase > 0 {
		timeout += t.phase
	}
	seen, err := waitReadable(t0.Add(timeout), fds...)
	if err != nil {
		fail("waiting for the exits: %v", err)
		return
	}
	if t.hasCMD {
		t.cmdGone = append(t.cmdGone, seen[0].Sub(t0))
	}
	t.exited = append(t.exited, seen[len(seen)-1].Sub(t0))
}

// shellQuote quotes argv for sh -c.
func shellQuote(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// cleanEnv drops TANDEM_* from the environment, so a variable set in the
// caller's shell cannot change what is measured.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TANDEM_") {
			env = append(env, kv)
		}
	}
	return env
}
