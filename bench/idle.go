package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
)

// idler is one init left idle over `sleep` while its footprint is read.
type idler struct {
	name        string
	argv        []string
	dir         string
	withMain    bool  // a sidecar whose main holds its lifeline
	holder      *proc // that main, stopped at the end
	p           *proc
	start, end  taskTotals
	stat0, stat procStat
	status      procStatus
	err         error
}

const (
	idleAttached    = "tandem sidecar --done-file, main attached (lifeline)"
	idleNotAttached = "tandem sidecar --done-file, no main attached (1 s poll)"
)

// newIdlers: tandem run, the two sidecars (one whose main holds its
// lifeline, one with a done file only), and every peer.
func (b *bench) newIdlers() ([]*idler, error) {
	var dirs [2]string
	for i := range dirs {
		d, err := os.MkdirTemp(b.work, "idle-")
		if err != nil {
			return nil, err
		}
		dirs[i] = d
	}
	sleep := []string{"sleep", "1000"}
	sidecar := func(dir string, n int) []string {
		return append([]string{b.tandem.path, "sidecar", "--name", fmt.Sprintf("bench-idle-%d-%d", os.Getpid(), n),
			"--done-file", filepath.Join(dir, "done"), "--"}, sleep...)
	}
	idlers := []*idler{
		{name: "tandem run", argv: b.tandem.argv(sleep...), dir: dirs[0]},
		{name: idleAttached, argv: sidecar(dirs[1], 1), dir: dirs[1], withMain: true},
		{name: idleNotAttached, argv: sidecar(dirs[0], 0), dir: dirs[0]},
	}
	for _, in := range b.peers {
		idlers = append(idlers, &idler{name: in.name, argv: in.argv(sleep...), dir: dirs[0]})
	}
	return idlers, nil
}

// startIdleMain starts the sidecar's main before the sidecar, which then
// attaches at its start: the lifeline-main helper, never triggered.
func (b *bench) startIdleMain(id *idler) error {
	p, err := startProc(helperArgv(b.self, "lifeline-main", filepath.Join(id.dir, "done")),
		procOptions{dir: id.dir, stdinPipe: true})
	if err != nil {
		return err
	}
	id.holder = p
	line, err := readLine(p.out, time.Now().Add(10*time.Second))
	if err != nil || line != "held" {
		return fmt.Errorf("lifeline-main: %q, %v; want \"held\"", line, err)
	}
	return nil
}

// measureIdle starts every idler, waits until each has its child (and a
// sidecar its main attached), then a second for start-up work (the Go
// runtime's first GC, scavenger) to be over, and samples over b.cfg.idle.
func (b *bench) measureIdle() ([]*idler, error) {
	idlers, err := b.newIdlers()
	if err != nil {
		return nil, err
	}
	for _, id := range idlers {
		if id.withMain {
			id.err = b.startIdleMain(id)
		}
		if id.err == nil {
			id.p, id.err = startProc(id.argv, procOptions{dir: id.dir})
		}
	}
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
		if id.err == nil && id.withMain {
			id.err = waitAttached(id.p.pid(), lifeline.Of(filepath.Join(id.dir, "done")), deadline)
		}
	}
	time.Sleep(time.Second)
	for _, id := range idlers {
		id.start, id.stat0 = id.sample()
	}
	time.Sleep(b.cfg.idle)
	for _, id := range idlers {
		id.end, id.stat = id.sample()
		if id.err == nil {
			id.status, id.err = readStatus(id.p.pid())
		}
		if id.err == nil && id.withMain {
			// Still attached at the end: a 0 from a sidecar that had let go
			// of its main would prove nothing.
			id.err = waitAttached(id.p.pid(), lifeline.Of(filepath.Join(id.dir, "done")), time.Now())
		}
	}
	for _, id := range idlers {
		for _, p := range []*proc{id.p, id.holder} {
			if p != nil {
				p.stop(unix.SIGTERM, 5*time.Second)
			}
		}
	}
	return idlers, nil
}

func (id *idler) sample() (taskTotals, procStat) {
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
