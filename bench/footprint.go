package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
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

	type idler struct {
		name        string
		argv        []string
		p           *proc
		start, end  taskTotals
		stat0, stat procStat
		status      procStatus
		err         error
	}
	dir, err := os.MkdirTemp(b.work, "idle-")
	if err != nil {
		b.note("footprint: " + err.Error())
		return
	}
	sleep := []string{"sleep", "1000"}
	idlers := []*idler{
		{name: "tandem run", argv: b.tandem.argv(sleep...)},
		{name: "tandem sidecar --done-file (1 s poll)", argv: append([]string{b.tandem.path, "sidecar",
			"--name", fmt.Sprintf("bench-idle-%d", os.Getpid()), "--done-file", filepath.Join(dir, "done"), "--"}, sleep...)},
	}
	for _, in := range b.peers {
		idlers = append(idlers, &idler{name: in.name, argv: in.argv(sleep...)})
	}
	for _, id := range idlers {
		id.p, id.err = startProc(id.argv, procOptions{dir: dir})
	}
	// Ready once the init has its child; then a second for start-up work
	// (the Go runtime's first GC, scavenger) to be over.
	deadline := time.Now().Add(10 * time.Second)
	for _, id := range idlers {
		for id.err == nil {
			kids, err := children(id.p.pid())
			if err == nil && len(kids) > 0 {
				break
			}
			if time.Now().After(deadline) {
				id.err = fmt.Errorf("no child after 10 s: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	time.Sleep(time.Second)
	sample := func(id *idler) (taskTotals, procStat) {
		if id.err != nil {
			return taskTotals{}, procStat{}
		}
		t, err := readTaskTotals(id.p.pid())
		if err != nil {
			id.err = err
		}
		st, err := readStat(id.p.pid())
		if err != nil {
			id.err = err
		}
		return t, st
	}
	for _, id := range idlers {
		id.start, id.stat0 = sample(id)
	}
	time.Sleep(b.cfg.idle)
	for _, id := range idlers {
		id.end, id.stat = sample(id)
		if id.err == nil {
			id.status, id.err = readStatus(id.p.pid())
		}
	}
	for _, id := range idlers {
		if id.p != nil {
			id.p.stop(unix.SIGTERM, 5*time.Second)
		}
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
}
