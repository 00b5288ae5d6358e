package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// runCtx is one run of a done target: what its trigger acts on.
type runCtx struct {
	wrapper *proc
	main    *mainHolder // the main holding the done file's lifeline; nil without one
	dir     string
	run     int
}

// sidecarLog is where a tandem sidecar under measurement logs: the bench
// reads its done-seen line to check why it stopped.
const sidecarLog = "sidecar.log"

// spread reports whether a target with n runs runs in round i of rounds,
// so that its runs are spread evenly over the whole benchmark.
func spread(i, n, rounds int) bool {
	return (i+1)*n/rounds > i*n/rounds
}

// doneRun is one measurement; a run that cannot be measured (the wrapper or
// CMD gone before the trigger, a timeout, a sidecar stopped for another
// reason) counts as failed and is not retried, so the benchmark's length
// stays bounded.
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
	rc := &runCtx{dir: dir, run: run}
	fds, cleanup, err := b.prepareDoneRun(t, rc)
	defer cleanup()
	if err != nil {
		fail("%v", err)
		return
	}
	wrapperAt := len(fds) - 1
	if t.timeMain {
		fds = append(slices.Clip(fds), rc.main.p.pidfd)
	}
	t0, triggerCleanup, err := t.trigger(rc)
	defer triggerCleanup()
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
	var mainTook time.Duration
	if t.origin != nil {
		if t0, mainTook, err = t.origin(rc); err != nil {
			fail("t0 from the main: %v", err)
			return
		}
	}
	if t.source != "" {
		if err := checkSidecar(rc.wrapper, filepath.Join(dir, sidecarLog), t.source); err != nil {
			fail("%v", err)
			return
		}
	}
	t.record(t0, seen, wrapperAt, mainTook)
}

// record keeps one measured run: seen holds CMD's exit first (when it has
// one), the wrapper's at wrapperAt, and the main's last (timeMain).
func (t *doneTarget) record(t0 time.Time, seen []time.Time, wrapperAt int, mainTook time.Duration) {
	if t.hasCMD {
		t.cmdGone = append(t.cmdGone, seen[0].Sub(t0))
	}
	if t.origin != nil {
		t.mainTook = append(t.mainTook, mainTook)
	}
	t.exited = append(t.exited, seen[wrapperAt].Sub(t0))
	if t.timeMain {
		t.mainGone = append(t.mainGone, seen[len(seen)-1].Sub(t0))
	}
}

// prepareDoneRun starts the wrapper (and the main, for a lifeline target)
// and lets it go idle; it returns the pidfds whose exits are timed, CMD's
// first. cleanup is never nil and undoes whatever was started.
func (b *bench) prepareDoneRun(t *doneTarget, rc *runCtx) (fds []int, cleanup func(), err error) {
	var undo []func()
	cleanup = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	// The temporary file exists before the wrapper starts, so its creation
	// is not an event the wrapper is still digesting at the trigger.
	if err := os.WriteFile(filepath.Join(rc.dir, doneTemp), []byte(doneJSON), 0o644); err != nil {
		return nil, cleanup, err
	}
	p, err := t.start(rc.dir, rc.run)
	if err != nil {
		return nil, cleanup, fmt.Errorf("start: %w", err)
	}
	rc.wrapper = p
	undo = append(undo, p.kill)
	deadline := time.Now().Add(10 * time.Second)
	pid, err := readPID(p.out, deadline)
	if err != nil {
		return nil, cleanup, err
	}
	fds = []int{p.pidfd}
	if t.hasCMD {
		cmdFD, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			return nil, cleanup, fmt.Errorf("pidfd_open CMD %d: %w", pid, err)
		}
		// The shell loops leave CMD behind; through the pidfd, the signal
		// cannot reach another process that reused its pid.
		undo = append(undo, func() { unix.Close(cmdFD) }, func() { _ = unix.PidfdSendSignal(cmdFD, unix.SIGKILL, nil, 0) })
		fds = []int{cmdFD, p.pidfd}
	}
	alive := slices.Clone(fds)
	if t.attach != nil {
		rc.main, err = t.attach(rc)
		if rc.main != nil {
			undo = append(undo, rc.main.kill)
			alive = append(alive, rc.main.p.pidfd)
		}
		if err != nil {
			return nil, cleanup, fmt.Errorf("attach the main: %w", err)
		}
	}
	return fds, cleanup, t.settleDown(alive)
}

// settleDown lets the wrapper go idle, then checks that nothing it needs
// ended meanwhile: e.g. someone's `tandem done --signal-peers` on this
// machine stopped our sidecar.
func (t *doneTarget) settleDown(alive []int) error {
	wait := settle
	if t.settle > 0 {
		wait = t.settle
	}
	if t.phase > 0 {
		wait += rand.N(t.phase)
	}
	time.Sleep(wait)
	for _, fd := range alive {
		if exited(fd) {
			return errors.New("stopped before the trigger")
		}
	}
	return nil
}

// checkSidecar: a tandem sidecar that has exited stopped for the reason
// the run is about (its done-seen line says so), with exit code 0.
func checkSidecar(p *proc, logPath, source string) error {
	got, err := doneSeenSource(logPath)
	if err != nil || got != source {
		return fmt.Errorf("sidecar stopped on done-seen source %q (%v), want %q", got, err, source)
	}
	p.wait()
	if p.cmd.ProcessState == nil {
		return fmt.Errorf("sidecar %d not reaped", p.pid())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("sidecar exited %d, want 0", code)
	}
	return nil
}

// doneSeenSource reads a tandem log for its done-seen line's source.
func doneSeenSource(logPath string) (string, error) {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return "", err
	}
	return parseDoneSeen(data)
}

func parseDoneSeen(log []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		var line struct {
			Event  string `json:"event"`
			Source string `json:"source"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Event == "done-seen" {
			return line.Source, nil
		}
	}
	return "", fmt.Errorf("no done-seen event in %d bytes of log", len(log))
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
