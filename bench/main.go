// Command bench compares tandem with the shell loop it replaces and with
// tini, tini-static, dumb-init and catatonit, side by side on this machine,
// and prints one markdown table. It measures and prints; it never fails on
// a figure: figures vary with the machine, and a timed assertion would only flake.
//
//	go run ./bench -tandem bin/tandem [-quick] [-only done,signal,startup,footprint,reap]
//
// docs/benchmarks.md says what each figure means and how it is taken.
package main

import (
	"debug/buildinfo"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// config is how much of each benchmark to run.
type config struct {
	doneRuns       int // done file → stopped, tandem and its inotify floor
	shellFastRuns  int // the loop at sleep 0.1
	shellSlowRuns  int // the loop at sleep 2: about 2 s a run
	peerSignalRuns int // the shared-PID signal paths and their floor
	forwardRuns    int // SIGUSR1 through one running init
	termRuns       int // SIGTERM, one fresh init per run
	startupRuns    int
	idle           time.Duration
	orphans        int
	reapRuns       int
	needsRuns      int // main --needs: a needed sidecar killed outright, and its floor
}

// newConfig: the full run takes about two minutes on two busy cores;
// -quick is a smoke run of a few seconds that exercises every path.
func newConfig(quick bool) config {
	if quick {
		return config{
			doneRuns: 10, shellFastRuns: 3, shellSlowRuns: 1, peerSignalRuns: 5,
			forwardRuns: 20, termRuns: 5, startupRuns: 20,
			idle: time.Second, orphans: 300, reapRuns: 1, needsRuns: 5,
		}
	}
	return config{
		doneRuns: 200, shellFastRuns: 30, shellSlowRuns: 10, peerSignalRuns: 100,
		forwardRuns: 200, termRuns: 50, startupRuns: 200,
		idle: 10 * time.Second, orphans: 10000, reapRuns: 3, needsRuns: 50,
	}
}

// scaled multiplies the run counts, keeping at least one run of each.
func (c config) scaled(f float64) config {
	if f <= 0 || f == 1 {
		return c
	}
	for _, n := range []*int{&c.doneRuns, &c.shellFastRuns, &c.shellSlowRuns, &c.peerSignalRuns,
		&c.forwardRuns, &c.termRuns, &c.startupRuns, &c.reapRuns, &c.needsRuns} {
		*n = max(1, int(float64(*n)*f+0.5))
	}
	return c
}

var benchmarkNames = []string{"done", "signal", "startup", "footprint", "reap", "needs"}

// parseOnly turns -only into the set of benchmarks to run.
func parseOnly(only string) (map[string]bool, error) {
	selected := map[string]bool{}
	if strings.TrimSpace(only) == "" {
		for _, n := range benchmarkNames {
			selected[n] = true
		}
		return selected, nil
	}
	for _, n := range strings.Split(only, ",") {
		n = strings.TrimSpace(n)
		known := false
		for _, k := range benchmarkNames {
			known = known || k == n
		}
		if !known {
			return nil, fmt.Errorf("-only: unknown benchmark %q (known: %s)", n, strings.Join(benchmarkNames, ", "))
		}
		selected[n] = true
	}
	return selected, nil
}

type bench struct {
	cfg    config
	self   string // this binary, which also plays the helper programs
	tandem initProg
	peers  []initProg
	work   string // scratch directory, removed at the end
	rows   []row
	// headlines: tandem against its references, printed together at the end
	headlines []headline
	notes     []string
	// mainIsPID1: 1d's killed main is PID 1 of its own PID namespace.
	mainIsPID1 bool
}

func (b *bench) progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func (b *bench) note(s string) {
	b.notes = append(b.notes, s)
	b.progress("%s", s)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		os.Exit(runHelper(os.Args[2:]))
	}
	os.Exit(run())
}

func run() int {
	tandemPath := flag.String("tandem", "bin/tandem", "the tandem binary to measure")
	quick := flag.Bool("quick", false, "smoke run: a few iterations of everything")
	scale := flag.Float64("scale", 1, "multiply every run count (not the idle window or the orphans) by this, e.g. 0.5 or 3")
	only := flag.String("only", "", "comma-separated subset: "+strings.Join(benchmarkNames, ","))
	flag.Parse()
	selected, err := parseOnly(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	abs, err := filepath.Abs(*tandemPath)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: tandem binary: %v (run `make build` first)\n", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	work, err := os.MkdirTemp("", "tandem-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer os.RemoveAll(work)

	b := &bench{cfg: newConfig(*quick).scaled(*scale), self: self, tandem: tandemProg(abs), work: work}
	b.peers = resolvePeers(b.note)
	if filepath.Base(abs) != "tandem" {
		b.note(fmt.Sprintf("%s is not named tandem: `tandem done --peer` finds sidecars by argv[0], so that path is skipped", abs))
	}

	started := time.Now()
	loadBefore := loadAverage()
	type step struct {
		name string
		fn   func()
	}
	for _, s := range []step{
		{"done", b.benchDone},
		{"signal", b.benchSignal},
		{"startup", b.benchStartup},
		{"footprint", b.benchFootprint},
		{"reap", b.benchReap}, {"needs", b.benchNeeds},
	} {
		if selected[s.name] {
			t := time.Now()
			b.progress("%s …", s.name)
			s.fn()
			b.progress("%s took %s", s.name, time.Since(t).Round(100*time.Millisecond))
		}
	}
	b.printReport(started, loadBefore)
	return 0
}

func (b *bench) printReport(started time.Time, loadBefore string) {
	tandemGo := "?"
	if bi, err := buildinfo.ReadFile(b.tandem.path); err == nil {
		tandemGo = bi.GoVersion
	}
	// `tandem version` says which build was measured (commit, -dirty).
	tandemVersion := "tandem ?"
	if out, err := exec.Command(b.tandem.path, "version").Output(); err == nil {
		tandemVersion, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	}
	mode := "full"
	if b.cfg.orphans < 10000 {
		mode = "quick (-quick: smoke figures, too few runs to compare)"
	}
	fmt.Printf("# tandem benchmarks\n\n")
	fmt.Printf("%s UTC · %d CPUs · Linux %s · load average %s at start, %s at end · bench %s · %s built with %s · %s run, took %s\n\n",
		started.UTC().Format("2006-01-02 15:04"), runtime.NumCPU(), kernelRelease(), loadBefore, loadAverage(),
		runtime.Version(), tandemVersion, tandemGo, mode, time.Since(started).Round(time.Second))
	for _, n := range b.notes {
		fmt.Printf("- %s\n", n)
	}
	if len(b.notes) > 0 {
		fmt.Println()
	}
	fmt.Print(renderTable(b.rows))
	fmt.Print(renderHeadlines(b.headlines))
}

// loadAverage is the 1, 5 and 15 minute load from /proc/loadavg.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "?"
	}
	return unix.ByteSliceToString(u.Release[:])
}
