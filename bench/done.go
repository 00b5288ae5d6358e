package main

import (
	"fmt"
	"time"
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

// doneJSON is a done file as `tandem main` writes it.
const doneJSON = `{"version":1,"name":"bench","event":"done","exitCode":0,"signal":"","reason":"exited","time":"2026-11-30T06:22:52.258974522Z"}` + "\n"

func (b *bench) benchDone() {
	ts := b.newDoneTargets()
	rounds := 0
	for _, t := range ts.all() {
		rounds = max(rounds, t.runs)
	}
	// Interleaved, so that a burst of load from the neighbours lands on
	// every target alike rather than on whichever ran at that moment.
	for i := range rounds {
		for _, t := range ts.all() {
			if spread(i, t.runs, rounds) {
				b.doneRun(t, i)
			}
		}
	}
	b.fileRows(ts)
	b.signalRows(ts)
	b.lostRows(ts.lost, ts.lostFloor)
}

// fileRows: 1a and 1b, the done file.
func (b *bench) fileRows(ts *doneTargets) {
	const (
		secGone   = "1a. done file renamed into place → CMD gone (has exited)"
		secExited = "1b. done file renamed → wrapper exited (CMD gone and the init itself gone)"
	)
	add := b.addTiming
	tGone, tExit := summarize(ts.tandem.cmdGone), summarize(ts.tandem.exited)
	add(secGone, ts.tandem.name, tGone, ts.tandem.failed, tGone, "target ≤ 0.5 ms median")
	b.attachedGoneRow(secGone, ts.attached, tGone)
	add(secGone, ts.floorKill.name, summarize(ts.floorKill.cmdGone), ts.floorKill.failed, tGone,
		"what any Go supervisor pays: event wake-up, kill, CMD's exit")
	for _, t := range []*doneTarget{ts.shellFast, ts.shell2} {
		add(secGone, t.name, summarize(t.cmdGone), t.failed, tGone, "")
	}
	floor := summarize(ts.floor.exited)
	b.headline(headline{order: headDoneGone, figure: "done file renamed → sidecar's CMD gone", tandem: tGone,
		reference: "minimal Go supervisor (inotify read → kill)", ref: summarize(ts.floorKill.cmdGone), goal: "≤ 1.3×"})
	b.headline(headline{order: headDoneExited, figure: "done file renamed → sidecar's tandem exited", tandem: tExit,
		reference: "the same minimal supervisor, exited,", ref: summarize(ts.floorKill.exited), goal: "≤ 1.3×"})
	add(secExited, ts.tandem.name, tExit, ts.tandem.failed, tExit, fmt.Sprintf("%s a Go program exiting with its watch held (median); %s",
		overUnder(tExit.median-floor.median), fastShare(ts.tandem.exited)))
	b.attachedExitedRow(secExited, ts.attached, tExit, floor)
	add(secExited, ts.floor.name, floor, ts.floor.failed, tExit,
		"the exit waits for the kernel's inotify teardown, as tandem's does when no main is attached (it holds its watch until done); "+fastShare(ts.floor.exited))
	add(secExited, ts.floorKill.name, summarize(ts.floorKill.exited), ts.floorKill.failed, tExit,
		"kills CMD, removes its watch, reaps CMD, exits; "+fastShare(ts.floorKill.exited))
	for _, t := range []*doneTarget{ts.shellFast, ts.shell2} {
		add(secExited, t.name, summarize(t.exited), t.failed, tExit, "sh exits right after its kill, without waiting for CMD")
	}
}

// signalRows: 1c, the shared PID namespace.
func (b *bench) signalRows(ts *doneTargets) {
	const sec = "1c. shared PID namespace: done signal → CMD gone / tandem exited"
	add := b.addTiming
	sFloor := summarize(ts.sigFloor.exited)
	if p := ts.peerDone; p != nil {
		add(sec, p.name+" → CMD gone", summarize(p.cmdGone), p.failed, summary{},
			"includes starting `tandem done` and its /proc scan")
		add(sec, p.name+" → tandem exited", summarize(p.exited), p.failed, summary{}, "")
	}
	add(sec, ts.sig.name+" → CMD gone", summarize(ts.sig.cmdGone), ts.sig.failed, summary{}, "")
	sExit := summarize(ts.sig.exited)
	add(sec, ts.sig.name+" → tandem exited", sExit, ts.sig.failed, summary{},
		fmt.Sprintf("%s the floor below (median)", overUnder(sExit.median-sFloor.median)))
	add(sec, ts.sigFloor.name, sFloor, ts.sigFloor.failed, sExit, "ratio: tandem exited ÷ floor")
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
