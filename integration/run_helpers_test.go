package integration

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

// Helper programs and process tools shared by the run_*_test.go files.

// runDefaultSignals is the prefix that starts tandem with SIGHUP and SIGINT
// at their default action, for tests that send them: a shell that runs the
// tests as a background job without job control hands them SIGINT ignored,
// and tandem rightly keeps an inherited ignore.
func runDefaultSignals() []string { return helper("run-exec", "--default=HUP,INT", "--") }

// run-exec [--default=SIG,...] [--ignore=SIG,...] [--block=SIG,...] -- PROG
// ARG...: set up the signal state a caller can hand down (SIG_IGN and the
// blocked mask survive exec; exec.Cmd can set neither) and become PROG.
func helperRunExec(args []string) int {
	var dfl, ignore, block []unix.Signal
	for len(args) > 0 && args[0] != "--" {
		name, list, _ := strings.Cut(args[0], "=")
		sigs, err := runParseSignals(list)
		if err != nil {
			fmt.Fprintln(os.Stderr, "run-exec:", err)
			return 96
		}
		switch name {
		case "--default":
			dfl = append(dfl, sigs...)
		case "--ignore":
			ignore = append(ignore, sigs...)
		case "--block":
			block = append(block, sigs...)
		default:
			fmt.Fprintf(os.Stderr, "run-exec: unknown option %q\n", args[0])
			return 96
		}
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "run-exec: expected -- PROG ARG...")
		return 96
	}
	argv := args[1:]
	for _, sig := range dfl {
		if err := setDefaultAction(sig); err != nil {
			fmt.Fprintln(os.Stderr, "run-exec:", err)
			return 96
		}
	}
	for _, sig := range ignore {
		signal.Ignore(sig)
	}
	// The mask is per thread and exec keeps the calling thread's: block and
	// exec on one locked thread.
	runtime.LockOSThread()
	var set unix.Sigset_t
	for _, sig := range block {
		set.Val[(sig-1)/64] |= 1 << ((sig - 1) % 64)
	}
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, nil); err != nil {
		fmt.Fprintln(os.Stderr, "run-exec: block:", err)
		return 96
	}
	path, err := exec.LookPath(argv[0])
	if err == nil {
		err = unix.Exec(path, argv, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "run-exec: exec %q: %v\n", argv[0], err)
	return 96
}

func runParseSignals(list string) ([]unix.Signal, error) {
	var sigs []unix.Signal
	for name := range strings.SplitSeq(list, ",") {
		sig, err := signals.Parse(name)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, sig)
	}
	return sigs, nil
}

// run-leave HELPER ARG... [+ HELPER ARG...]...: start each helper as a child
// in CMD's own process group (stdin from /dev/null), then read stdin until
// EOF and exit 0, leaving them behind. The children are never waited for.
func helperRunLeave(args []string) int {
	for len(args) > 0 {
		end := len(args)
		for i, a := range args {
			if a == "+" {
				end = i
				break
			}
		}
		if startHelperChild(args[0], args[1:end]...) == nil {
			return 94
		}
		args = args[min(end+1, len(args)):]
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// startHelperChild starts a helper as a child in the caller's process group,
// stdin, stdout and stderr on /dev/null; it is never waited for. nil when it
// cannot start. It holds none of tandem's pipes: were it to outlive a
// failed test, the harness would otherwise wait for it forever.
func startHelperChild(name string, args ...string) *exec.Cmd {
	self, err := os.Executable() // helperBin is only set in the test process
	if err != nil {
		fmt.Fprintln(os.Stderr, "start helper:", err)
		return nil
	}
	child := exec.Command(self, append([]string{helperArg, name}, args...)...)
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start helper:", err)
		return nil
	}
	return child
}

// run-on-signal SIG OUT: write "ready PID" to OUT; on SIG write "handled SIG"
// and exit 0. A leftover whose handler must get to run.
func helperRunOnSignal(args []string) int {
	sig, err := signals.Parse(args[0])
	if err != nil {
		return 93
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	appendLine(args[1], fmt.Sprintf("ready %d", os.Getpid()))
	<-ch
	appendLine(args[1], "handled "+signals.Name(sig))
	return 0
}

// run-hold: ignore SIGTERM and run until every writer of stdin is gone. It
// polls for the hang-up instead of reading, so it takes no data from a pipe
// it shares with CMD.
func helperRunHold([]string) int {
	signal.Ignore(syscall.SIGTERM)
	fds := []unix.PollFd{{Fd: 0}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == nil && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			return 0
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			return 92
		}
	}
}

// runKillGroupOnFailure kills what is left of CMD's process group when the
// test fails, so no helper outlives it holding the harness's pipes. Only
// outside a PID namespace (inside, CMD's pid is not ours to use, and the
// namespace dies with tandem), and only on failure: after a pass the group
// is long gone and its number may belong to someone else.
func runKillGroupOnFailure(t testing.TB, p *tandemProc, pid1 bool) {
	t.Cleanup(func() {
		if !pid1 && t.Failed() {
			p.killCMDGroups()
		}
	})
}

// runChildren lists every process (zombies included) whose parent is ppid.
func runChildren(t testing.TB, ppid int) []procStat {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var kids []procStat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.ppid == ppid {
			kids = append(kids, st)
		}
	}
	return kids
}

// runZombies lists the zombies waiting for ppid to reap them.
func runZombies(t testing.TB, ppid int) []procStat {
	t.Helper()
	var zombies []procStat
	for _, st := range runChildren(t, ppid) {
		if st.state == 'Z' {
			zombies = append(zombies, st)
		}
	}
	return zombies
}

// runStatusMask reads one hexadecimal Sig* mask (SigBlk, SigIgn, SigCgt) from
// the text of /proc/PID/status.
func runStatusMask(t testing.TB, status, field string) uint64 {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		if hex, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatalf("%s: %v", field, err)
			}
			return mask
		}
	}
	t.Fatalf("no %s line in %q", field, status)
	return 0
}

func runSigBit(sig unix.Signal) uint64 { return 1 << (sig - 1) }

// runModes is the two ways tandem runs: as PID 1 of a fresh PID namespace
// (a container) and as a plain process, where it must be a subreaper.
var runModes = []struct {
	name string
	pid1 bool
}{
	{"pid1", true},
	{"subreaper", false},
}

// runOpts gives tandem its own PID namespace when pid1 is set (or skips the
// test where namespaces are unavailable).
func runOpts(t testing.TB, pid1 bool, opts procOptions) procOptions {
	t.Helper()
	if pid1 {
		opts.attr = newPIDNamespace(t)
	}
	return opts
}

// startLeaving starts `tandem run FLAGS -- run-leave LEFTOVER...` with a
// pipe for stdin: CMD leaves the helper LEFTOVER behind in its group and
// runs until endCMD closes the pipe; endCMD then waits for tandem to exit
// with CMD's 0.
func startLeaving(t *testing.T, opts procOptions, pid1 bool, flags []string, leftover ...string) (p *tandemProc, endCMD func()) {
	t.Helper()
	stdin, release := runStdinPipe(t)
	opts.stdin = stdin
	p = startTandem(t, runOpts(t, pid1, opts), cmdArgs(append([]string{"run"}, flags...), helper("run-leave", leftover...))...)
	runKillGroupOnFailure(t, p, pid1)
	stdin.Close()
	return p, func() {
		t.Helper()
		release.Close()
		if code := p.wait(); code != 0 {
			t.Fatalf("tandem exited %d, want CMD's 0", code)
		}
	}
}

// runStdinPipe returns a pipe to hand tandem as stdin and its write end; both
// are closed when the test ends.
func runStdinPipe(t testing.TB) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// runLookCat finds cat(1): the storm tests start hundreds of grandchildren and
// need one small program that blocks on stdin.
func runLookCat(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("the storm tests need cat(1): %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
