package main

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// benchReap: N zombies are reparented to the init at once (their parent
// exits), and the bench times how long until the init has reaped them all.
//
// Fair setup: as root, every init is PID 1 of a fresh PID namespace, where
// orphans go to it whatever it does, as in a container. Otherwise each runs
// as a child subreaper (tandem by itself, `tini -s`, catatonit by itself);
// dumb-init cannot be one and is skipped.
func (b *bench) benchReap() {
	sys, err := pidNamespace()
	if err != nil {
		b.note(fmt.Sprintf("reaping: cannot create a PID namespace (%v); inits run as child subreapers instead", err))
	}
	floor := initProg{name: floorReapName, path: b.self, prefix: []string{helperArg, "floor-reap"}}
	inits := b.reapers(sys != nil, floor)
	results := make([]reapResult, len(inits))
	for run := range b.cfg.reapRuns {
		for i, in := range inits {
			d, zombies, err := b.reapOnce(in, sys)
			if err != nil {
				results[i].failed++
				b.progress("%s: reaping run %d: %v", in.name, run, err)
				if zombies < 0 {
					continue
				}
			} else {
				results[i].times = append(results[i].times, d)
			}
			results[i].zombies = append(results[i].zombies, zombies)
		}
	}
	how := "each init as PID 1 of a new PID namespace"
	if sys == nil {
		how = "each init as a child subreaper"
	}
	b.reapRows(fmt.Sprintf("5. reaping: %d zombies reparented at once → all reaped (%s)", b.cfg.orphans, how), inits, results)
}

type reapResult struct {
	times   []time.Duration
	zombies []int
	failed  int
}

// reapers are the inits that take part: outside a PID namespace each as a
// child subreaper, and those that cannot be one are left out.
func (b *bench) reapers(asPID1 bool, floor initProg) []initProg {
	var inits []initProg
	for _, in := range append([]initProg{b.tandem, floor}, b.peers...) {
		if in.name == "tini-static" {
			continue // tini's code again; one column is enough here
		}
		if !asPID1 {
			if in.noSubreaper {
				b.note(in.name + ": cannot be a subreaper outside PID 1; skipped from reaping")
				continue
			}
			in.prefix = append(append([]string{}, in.subreaper...), in.prefix...)
		}
		inits = append(inits, in)
	}
	return inits
}

func (b *bench) reapRows(sec string, inits []initProg, results []reapResult) {
	ref := summarize(results[0].times)
	for i, in := range inits {
		s := summarize(results[i].times)
		s.failed = results[i].failed
		worst := 0
		for _, z := range results[i].zombies {
			worst = max(worst, z)
		}
		note := fmt.Sprintf("zombies left: %d (worst run; must be 0)", worst)
		if in.name == floorReapName {
			note += "; what any Go init pays: SIGCHLD through os/signal, wait4 through the runtime's system call path"
			b.headline(headline{order: headReapGo, figure: fmt.Sprintf("%d zombies reaped, against Go's floor", b.cfg.orphans), tandem: ref,
				reference: "minimal Go reaper", ref: s, goal: "(Go's share of the ratio to catatonit)"})
		}
		if in.name == "catatonit" {
			b.headline(headline{order: headReap, figure: fmt.Sprintf("%d zombies reaped", b.cfg.orphans), tandem: ref,
				reference: "catatonit", ref: s, goal: "≤ 1.0×"})
		}
		b.timingRowAgainst(sec, in.name, s, ref, note)
	}
}

// reapLimit bounds one reaping run; an init that does not reap is reported
// with the zombies it left, not waited for.
const reapLimit = 30 * time.Second

// reapOnce returns the time from the release of the zombies to the last one
// reaped, and how many were left at the end (-1: not measured).
func (b *bench) reapOnce(in initProg, sys *syscall.SysProcAttr) (time.Duration, int, error) {
	p, err := startProc(in.argv(helperArgv(b.self, "orphans", fmt.Sprint(b.cfg.orphans))...),
		procOptions{stdinPipe: true, sys: sys})
	if err != nil {
		return 0, -1, err
	}
	defer p.stop(unix.SIGTERM, 10*time.Second)
	line, err := readLine(p.out, time.Now().Add(2*time.Minute))
	if err != nil || !strings.HasPrefix(line, "ready") {
		return 0, -1, fmt.Errorf("orphan factory: %q %v", line, err)
	}
	// init → CMD (orphans) → orphan-parent, which holds the zombies.
	kids, err := children(p.pid())
	if err != nil || len(kids) != 1 {
		return 0, -1, fmt.Errorf("init's children: %v %v", kids, err)
	}
	cmdPID := kids[0]
	grand, err := children(cmdPID)
	if err != nil || len(grand) != 1 {
		return 0, -1, fmt.Errorf("CMD's children: %v %v", grand, err)
	}
	parentFD, err := unix.PidfdOpen(grand[0], 0)
	if err != nil {
		return 0, -1, err
	}
	defer unix.Close(parentFD)
	zombies, err := children(grand[0])
	if err != nil || len(zombies) != b.cfg.orphans {
		return 0, -1, fmt.Errorf("orphan-parent's zombies: %d of %d, %v", len(zombies), b.cfg.orphans, err)
	}
	time.Sleep(50 * time.Millisecond)

	t0 := time.Now()
	p.in.Close() // EOF: orphan-parent exits and its zombies go to the init
	p.in = nil
	if _, err := waitReadable(t0.Add(reapLimit), parentFD); err != nil {
		return 0, -1, fmt.Errorf("orphan-parent did not exit: %v", err)
	}
	left := func() []int {
		kids, _ := children(p.pid())
		var rest []int
		for _, k := range kids {
			if k != cmdPID {
				rest = append(rest, k)
			}
		}
		return rest
	}
	d, err := waitReaped(t0, zombies, left)
	if err != nil {
		rest := left()
		return 0, countZombies(rest), fmt.Errorf("%d not reaped after %s", len(rest), reapLimit)
	}
	// Anything that turns up later is a zombie the init missed.
	time.Sleep(100 * time.Millisecond)
	return d, countZombies(left()), nil
}

// waitReaped returns when no zombie is left, timed from t0 to the moment the
// last one was seen gone. It looks at one pid at a time, the last of those
// left, with a stat of /proc/PID: every init here reaps with wait(-1), which
// takes the zombies in the order they were reparented, so the last goes
// last. Reading the init's whole list of children at each look (10,000 pids,
// under the kernel's task list lock) would compete with the reaping it
// times. Once that pid is gone the whole list is read, and any left (an init
// that reaps in another order) are waited for the same way.
func waitReaped(t0 time.Time, zombies []int, left func() []int) (time.Duration, error) {
	for {
		last := zombies[len(zombies)-1]
		for procExists(last) {
			if time.Since(t0) > reapLimit {
				return 0, fmt.Errorf("pid %d not reaped after %s", last, reapLimit)
			}
			time.Sleep(250 * time.Microsecond)
		}
		gone := time.Since(t0)
		if zombies = left(); len(zombies) == 0 {
			return gone, nil
		}
	}
}

func procExists(pid int) bool {
	var st unix.Stat_t
	return unix.Stat(fmt.Sprintf("/proc/%d", pid), &st) == nil
}

func countZombies(pids []int) int {
	n := 0
	for _, pid := range pids {
		st, err := readStat(pid)
		if err == nil && st.state == 'Z' {
			n++
		}
	}
	return n
}

const floorReapName = "floor: minimal Go init (os/signal SIGCHLD → wait4 loop)"
