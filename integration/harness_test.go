package integration

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// testTimeout bounds every wait in a test: a hang fails the test with what
// was seen so far instead of stalling the suite. It is a safety bound, never
// what a test synchronises on.
const testTimeout = 30 * time.Second

// tandemProc is a running tandem whose stderr is parsed as it arrives.
type tandemProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdout *bytes.Buffer

	mu      sync.Mutex
	lines   []kit.Line
	raw     []string
	changed chan struct{} // closed and replaced whenever a line arrives
	exited  chan struct{}
	// hostPIDs: tandem runs in the test's PID namespace, so the pids it
	// logs can be signalled from here.
	hostPIDs bool
	code     int
}

// procOptions adjust how tandem is started.
type procOptions struct {
	dir    string
	env    []string // added to the test's environment
	stdin  io.Reader
	attr   *syscall.SysProcAttr
	prefix []string // e.g. unshare --pid --fork --mount-proc
	bin    string   // the tandem binary when not tandemBin (e.g. a copy another uid can run)
}

// startTandem starts tandem with args (after the binary name) and parses its
// JSON log lines. The process is killed when the test ends.
func startTandem(t testing.TB, opts procOptions, args ...string) *tandemProc {
	t.Helper()
	argv := append(append([]string{}, opts.prefix...), cmp.Or(opts.bin, tandemBin))
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = opts.dir
	cmd.Env = append(append(os.Environ(), "TANDEM_LOG_FORMAT=json", "TANDEM_LOG_LEVEL=debug"), opts.env...)
	cmd.Stdin = opts.stdin
	cmd.SysProcAttr = opts.attr
	p := &tandemProc{t: t, cmd: cmd, stdout: &bytes.Buffer{}, changed: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stdout = &lockedWriter{mu: &p.mu, w: p.stdout}
	p.hostPIDs = len(opts.prefix) == 0 && (opts.attr == nil || opts.attr.Cloneflags&syscall.CLONE_NEWPID == 0)
	// A plain pipe rather than StderrPipe: a CMD that outlives tandem keeps
	// the write end open, and Wait must not block on it.
	stderr, stderrWriter, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderrWriter
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	stderrWriter.Close()
	go p.readLogs(stderr)
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		p.killChildren()
		stderr.Close()
		if t.Failed() {
			t.Logf("tandem %v stderr:\n%s", args, strings.Join(p.rawLines(), "\n"))
		}
	})
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (p *tandemProc) readLogs(stderr io.Reader) {
	linesDone := make(chan struct{})
	go func() {
		defer close(linesDone)
		scanner := bufio.NewScanner(stderr)
		scanner.Buffer(make([]byte, 64<<10), 1<<20)
		for scanner.Scan() {
			text := scanner.Text()
			line, isJSON := kit.ParseJSON(text)
			p.mu.Lock()
			p.raw = append(p.raw, text)
			if isJSON {
				p.lines = append(p.lines, line)
			}
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
		}
	}()
	err := p.cmd.Wait()
	// Lines written just before the exit are still in the pipe: read them
	// before announcing the exit. A process that outlived tandem may hold
	// the pipe open; then give up after a bound rather than hang.
	select {
	case <-linesDone:
	case <-time.After(2 * time.Second):
	}
	p.mu.Lock()
	p.code = exitCodeOf(p.cmd.ProcessState, err)
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	close(p.exited)
}

// killChildren SIGKILLs the process group of every CMD that tandem logged as
// started, so a CMD that outlived a failed test cannot outlive the suite.
// Only when tandem ran in this PID namespace: there, the pids it logs are
// ours. In a fresh namespace the kernel ends every process with its PID 1.
func (p *tandemProc) killChildren() {
	if p.hostPIDs {
		p.killCMDGroups()
	}
}

// killCMDGroups SIGKILLs the process group of every CMD logged as started.
func (p *tandemProc) killCMDGroups() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if l.Is("cmd-started") && l.Num("pid") > 1 {
			_ = syscall.Kill(-l.Num("pid"), syscall.SIGKILL)
		}
	}
}

func exitCodeOf(state *os.ProcessState, err error) int {
	if state == nil {
		return -1
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return -1
	}
	return state.ExitCode()
}

func (p *tandemProc) rawLines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.raw...)
}

// Stdout is what CMD wrote to stdout so far.
func (p *tandemProc) Stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// waitFor blocks until match accepts a log line (returned), or fails the
// test when tandem exits first or testTimeout passes.
func (p *tandemProc) waitFor(what string, match func(kit.Line) bool) kit.Line {
	p.t.Helper()
	deadline := time.After(testTimeout)
	seen := 0
	for {
		line, found, changed := p.scanLines(&seen, match)
		if found {
			return line
		}
		select {
		case <-changed:
		case <-p.exited:
			// Lines may have arrived with the exit; look once more.
			if line, found, _ := p.scanLines(&seen, match); found {
				return line
			}
			p.t.Fatalf("tandem exited (code %d) before logging %s", p.code, what)
		case <-deadline:
			p.t.Fatalf("no log line %s within %s", what, testTimeout)
		}
	}
}

// scanLines looks through the lines logged since *seen for one that match
// accepts; changed is closed when the next line arrives.
func (p *tandemProc) scanLines(seen *int, match func(kit.Line) bool) (line kit.Line, found bool, changed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; *seen < len(p.lines); *seen++ {
		if match(p.lines[*seen]) {
			return p.lines[*seen], true, nil
		}
	}
	return kit.Line{}, false, p.changed
}

// waitEvent waits for a log line with this event.
func (p *tandemProc) waitEvent(name string) kit.Line {
	p.t.Helper()
	return p.waitFor(fmt.Sprintf("event %q", name), func(l kit.Line) bool { return l.Is(name) })
}

// hasEvent reports whether a line with this event was logged so far.
func (p *tandemProc) hasEvent(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.ContainsFunc(p.lines, func(l kit.Line) bool { return l.Is(name) })
}

// childPID waits for "cmd-started" and returns CMD's pid as tandem sees it.
func (p *tandemProc) childPID() int {
	p.t.Helper()
	return p.waitEvent("cmd-started").Num("pid")
}

// wait waits for tandem to exit and returns its exit code.
func (p *tandemProc) wait() int {
	p.t.Helper()
	select {
	case <-p.exited:
		return p.code
	case <-time.After(testTimeout):
		p.t.Fatalf("tandem did not exit within %s", testTimeout)
		return -1
	}
}

// signal sends sig to the tandem process itself.
func (p *tandemProc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal tandem: %v", err)
	}
}

// runTandem runs tandem to the end and returns its exit code, stdout and
// stderr.
func runTandem(t testing.TB, opts procOptions, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := startTandem(t, opts, args...)
	code = p.wait()
	return code, p.Stdout(), strings.Join(p.rawLines(), "\n")
}

// helper returns the argv that runs helper program name (helpers_test.go).
func helper(name string, args ...string) []string {
	return append([]string{helperBin, helperArg, name}, args...)
}

// cmdArgs joins tandem flags, "--" and a CMD argv.
func cmdArgs(tandemArgs []string, argv []string) []string {
	out := append([]string{}, tandemArgs...)
	out = append(out, "--")
	return append(out, argv...)
}
