package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
)

// Essential sidecars (main --needs): a needed sidecar's tandem killed outright
// → the main's CMD signalled, against a minimal watcher of the same
// lifeline; and the wake-ups of an idle main holding a needed sidecar.

const secNeedsLost = "1g. needed sidecar's tandem killed outright (SIGKILL) → the main's CMD signalled (main --needs)"

// benchNeeds measures main --needs.
func (b *bench) benchNeeds() {
	sys, err := pidNamespace()
	if err != nil {
		sys = nil
		b.note(fmt.Sprintf("needs: cannot create a PID namespace (%v); the sidecar runs as a plain child", err))
	}
	tandemMain := func(ready string) []string {
		return append([]string{b.tandem.path, "main", "--needs", ready, "--"}, helperArgv(b.self, "needs-cmd")...)
	}
	floor := func(ready string) []string {
		return append(helperArgv(b.self, "floor-lifeline-kill", lifeline.Of(ready)), helperArgv(b.self, "needs-cmd")...)
	}
	lost, lostFailed := b.needsLostRuns(sys, tandemMain, 1)
	floorLost, floorFailed := b.needsLostRuns(sys, floor, 0)
	s, f := summarize(lost), summarize(floorLost)
	b.addTiming(secNeedsLost, "tandem main --needs (sidecar = `tandem sidecar --ready-file`, PID 1 of its namespace)", s, lostFailed, s,
		"goal ≤ 2 ms median; t0 right before the SIGKILL, t1 in CMD's SIGTERM handler; every run checked: main exit 1")
	b.addTiming(secNeedsLost, "floor: minimal Go watcher (blocking read on the lifeline → SIGTERM, nothing else)", f, floorFailed, s,
		"what any watcher pays: the sidecar's death in the kernel, the wake-up, kill, CMD's handler")
	b.headline(headline{order: headNeedsLost, figure: "needed sidecar killed outright → main's CMD signalled", tandem: s,
		reference: "minimal Go watcher", ref: f, goal: "≤ 2 ms median (the lifeline's floor)"})
	b.needsIdleRow()
}

// needsLostRuns runs b.cfg.needsRuns times: a sidecar, a main from argv,
// both attached, then the sidecar SIGKILLed; it returns the latencies to
// CMD's handler and the count of runs that broke.
func (b *bench) needsLostRuns(sys *syscall.SysProcAttr, argv func(ready string) []string, wantExit int) ([]time.Duration, int) {
	var lat []time.Duration
	failed := 0
	for i := range b.cfg.needsRuns {
		d, err := b.needsLostRun(sys, argv, wantExit)
		if err != nil {
			failed++
			b.progress("needs run %d: %v", i, err)
			continue
		}
		lat = append(lat, d)
	}
	return lat, failed
}

func (b *bench) needsLostRun(sys *syscall.SysProcAttr, argv func(ready string) []string, wantExit int) (time.Duration, error) {
	dir, err := os.MkdirTemp(b.work, "needs-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	ready := filepath.Join(dir, "db-proxy.ready")
	sidecar, main, err := b.startNeedsPair(dir, ready, sys, argv(ready))
	if sidecar != nil {
		defer sidecar.kill()
	}
	if main != nil {
		defer main.kill()
	}
	if err != nil {
		return 0, err
	}
	time.Sleep(attachSettle)
	t0 := time.Now()
	if err := unix.PidfdSendSignal(sidecar.pidfd, unix.SIGKILL, nil, 0); err != nil {
		return 0, err
	}
	deadline := time.Now().Add(10 * time.Second)
	line, err := readLine(main.out, deadline)
	at, ok := strings.CutPrefix(line, "T ")
	ns, convErr := strconv.ParseInt(at, 10, 64)
	if err != nil || !ok || convErr != nil {
		return 0, fmt.Errorf("CMD's signal: %q, %v", line, err)
	}
	if _, err := waitReadable(deadline, main.pidfd); err != nil {
		return 0, fmt.Errorf("main did not exit: %w", err)
	}
	main.wait()
	if code := main.cmd.ProcessState.ExitCode(); code != wantExit {
		return 0, fmt.Errorf("main exited %d, want %d", code, wantExit)
	}
	return time.Unix(0, ns).Sub(t0), nil
}

// startNeedsPair starts the sidecar, waits for its ready file, starts the
// main, and waits until its CMD runs and it holds the lifeline open.
func (b *bench) startNeedsPair(dir, ready string, sys *syscall.SysProcAttr, mainArgv []string) (sidecar, main *proc, err error) {
	sidecar, err = startProc([]string{b.tandem.path, "sidecar", "--name", "db-proxy", "--ready-file", ready, "--", "sleep", "1000"},
		procOptions{dir: dir, sys: sys})
	if err != nil {
		return nil, nil, fmt.Errorf("start sidecar: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, err := os.Stat(ready); err != nil; _, err = os.Stat(ready) {
		if time.Now().After(deadline) {
			return sidecar, nil, fmt.Errorf("sidecar not ready in 10 s: %w", err)
		}
		time.Sleep(time.Millisecond)
	}
	main, err = startProc(mainArgv, procOptions{dir: dir})
	if err != nil {
		return sidecar, nil, fmt.Errorf("start main: %w", err)
	}
	if line, err := readLine(main.out, deadline); err != nil || line != "R" {
		return sidecar, main, fmt.Errorf("main's CMD: %q, %v; want \"R\"", line, err)
	}
	return sidecar, main, waitAttached(main.pid(), lifeline.Of(ready), deadline)
}

// needsIdleRow: wake-ups of an idle `tandem main --needs` over the idle
// window, its sidecar attached (context switches over every thread).
func (b *bench) needsIdleRow() {
	sec := fmt.Sprintf("4e. idle main holding a needed sidecar: wake-ups in %.0f s (context switches, all threads)", b.cfg.idle.Seconds())
	r := row{section: sec, subject: "tandem main --needs, sidecar attached (lifeline)", runs: "1", p95: "—", ratio: "—"}
	switches, cpu, err := b.needsIdle()
	if err != nil {
		r.median, r.note = "?", err.Error()
	} else {
		r.median = strconv.FormatUint(switches, 10)
		r.note = fmt.Sprintf("goal 0: a read blocked on the lifeline, no timer; CPU %s", fmtDur(cpu))
	}
	b.rows = append(b.rows, r)
}

func (b *bench) needsIdle() (switches uint64, cpu time.Duration, err error) {
	dir, err := os.MkdirTemp(b.work, "needs-idle-")
	if err != nil {
		return 0, 0, err
	}
	ready := filepath.Join(dir, "db-proxy.ready")
	argv := append([]string{b.tandem.path, "main", "--needs", ready, "--"}, helperArgv(b.self, "needs-cmd")...)
	sidecar, main, err := b.startNeedsPair(dir, ready, nil, argv)
	for _, p := range []*proc{main, sidecar} {
		if p != nil {
			defer p.stop(unix.SIGTERM, 5*time.Second)
		}
	}
	if err != nil {
		return 0, 0, err
	}
	time.Sleep(time.Second) // start-up work (the runtime's first GC, the scavenger) over
	start, err := readTaskTotals(main.pid())
	if err != nil {
		return 0, 0, err
	}
	time.Sleep(b.cfg.idle)
	end, err := readTaskTotals(main.pid())
	if err != nil {
		return 0, 0, err
	}
	// Still attached at the end: a 0 from a main that had let go would prove nothing.
	if err := waitAttached(main.pid(), lifeline.Of(ready), time.Now()); err != nil {
		return 0, 0, err
	}
	return end.switches - start.switches, time.Duration(end.cpuNS - start.cpuNS), nil
}

// helperNeedsCMD is the main's CMD: "R" once its handler is in place, then
// on SIGTERM "T UNIXNANO", taken first thing in the handler, and exit 0.
func helperNeedsCMD() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGTERM)
	writeStdout("R\n")
	<-sigs
	writeStdout(fmt.Sprintf("T %d\n", time.Now().UnixNano()))
	return 0
}
