package main

import (
	"fmt"
	"time"
)

// benchFootprint: binary size, then memory and CPU of every init idling
// over `sleep`, all at once over the same window.
func (b *bench) benchFootprint() {
	const secSize = "4a. binary size"
	tandemSize, _, _ := binaryInfo(b.tandem.path)
	for _, in := range append([]initProg{b.tandem}, b.peers...) {
		size, desc, err := binaryInfo(in.path)
		r := row{section: secSize, subject: in.name, runs: "—", p95: "—", ratio: "—"}
		if err != nil {
			r.median, r.note = "?", err.Error()
		} else {
			r.median, r.note = fmtMiB(size), desc
			r.ratio = fmtRatio(float64(tandemSize), float64(size))
		}
		if in.name == "tandem" {
			r.note += "; target ≤ 6 MiB"
		}
		b.rows = append(b.rows, r)
	}

	idlers, err := b.measureIdle()
	if err != nil {
		b.note("footprint: " + err.Error())
		return
	}
	secMem := "4b. idle memory while supervising `sleep` (RssAnon; VmRSS and threads in notes; tandem = tandem run)"
	secCPU := fmt.Sprintf("4c. CPU used while idle for %.0f s (schedstat, all threads; tandem = tandem run)", b.cfg.idle.Seconds())
	ref := idlers[0]
	for _, id := range idlers {
		r := row{section: secMem, subject: id.name, runs: "1", p95: "—", ratio: "—"}
		if id.err != nil {
			r.median, r.note = "?", id.err.Error()
		} else {
			r.median = fmtMiB(id.status.rssAnonKB << 10)
			r.note = fmt.Sprintf("VmRSS %s, %d threads", fmtMiB(id.status.vmRSSKB<<10), id.status.threads)
			if ref.err == nil {
				r.ratio = fmtRatio(float64(ref.status.rssAnonKB), float64(id.status.rssAnonKB))
			}
			if id == ref {
				r.note += "; target RssAnon ≤ 2 MiB"
			}
		}
		b.rows = append(b.rows, r)
	}
	for _, id := range idlers {
		r := row{section: secCPU, subject: id.name, runs: "1", p95: "—", ratio: "—"}
		if id.err != nil {
			r.median, r.note = "?", id.err.Error()
		} else {
			cpu := time.Duration(id.end.cpuNS - id.start.cpuNS)
			ticks := (id.stat.utime + id.stat.stime) - (id.stat0.utime + id.stat0.stime)
			r.median = fmtDur(cpu)
			r.note = fmt.Sprintf("%d wake-ups (context switches); utime+stime %d ticks (%d ms)",
				id.end.switches-id.start.switches, ticks, ticks*1000/userHZ)
			if ref.err == nil {
				r.ratio = fmtRatio(float64(ref.end.cpuNS-ref.start.cpuNS), float64(cpu))
			}
		}
		b.rows = append(b.rows, r)
	}
	b.wakeupRows(idlers)
}

// wakeupRows: the two sidecars side by side, in wake-ups over the same idle
// window (context switches summed over every thread).
func (b *bench) wakeupRows(idlers []*idler) {
	sec := fmt.Sprintf("4d. idle sidecar: wake-ups in %.0f s (context switches, all threads)", b.cfg.idle.Seconds())
	notes := map[string]string{
		idleAttached:    "goal 0: a read blocked on the lifeline, no watch, no timer",
		idleNotAttached: "inotify watch and the 1 s poll: what every sidecar did before the lifeline",
	}
	for _, name := range []string{idleAttached, idleNotAttached} {
		for _, id := range idlers {
			if id.name != name {
				continue
			}
			r := row{section: sec, subject: id.name, runs: "1", p95: "—", ratio: "—", note: notes[name]}
			if id.err != nil {
				r.median, r.note = "?", id.err.Error()
			} else {
				r.median = fmt.Sprintf("%d", id.end.switches-id.start.switches)
				r.note += fmt.Sprintf("; CPU %s", fmtDur(time.Duration(id.end.cpuNS-id.start.cpuNS)))
			}
			b.rows = append(b.rows, r)
		}
	}
}
