package integration

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
	"golang.org/x/sys/unix"
)

// tandem itself is SIGKILLed (OOM killer, kubelet, a mistaken kill -9).
// CMD must not be left running unsupervised.

// As PID 1 of a PID namespace (a container), the namespace dies with
// tandem: the kernel kills CMD.
func TestFaultSIGKILLAsPID1(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	pids, signals := inDir(dir, "pids"), inDir(dir, "signals")
	p := startTandem(t, procOptions{attr: newPIDNamespace(t)},
		cmdArgs([]string{"run"}, helper("fault-hostpid-record", pids, signals))...)
	waitLines(t, signals, 1)
	hostLine := waitLines(t, pids, 1)[0]
	hostCMD, ok := parsePIDLine(hostLine, "host")
	if !ok {
		t.Fatalf("%s: first line %q, want \"host PID\"", pids, hostLine)
	}
	cmd := openPidfd(t, hostCMD)

	mustDo(t, p.cmd.Process.Kill())
	if code := p.wait(); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("tandem exited %d, want 137", code)
	}
	if !cmd.exited(testTimeout) {
		cmd.kill()
		t.Fatal("CMD outlived tandem, the init of its PID namespace")
	}
}

// Not PID 1 (shareProcessNamespace, a shell): CMD gets the stop signal
// through the parent-death signal. Go ties it to the OS thread that forked
// the child, so tandem forks from one locked thread that never exits; the
// cases check it still holds after tandem has run for a while: many
// signals forwarded (goroutines and threads come and go), a CMD restarted.
func TestFaultSIGKILLNotPID1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		stopSignal syscall.Signal
		before     func(t *testing.T, p *tandemProc, signals string, cmdPID int) // what tandem lives through first
	}{
		{name: "fresh", args: []string{"run"}, stopSignal: syscall.SIGTERM},
		{
			name:       "after forwarding a thousand signals",
			args:       []string{"run", "--stop-signal", "USR1"},
			stopSignal: syscall.SIGUSR1,
			before: func(t *testing.T, p *tandemProc, signals string, _ int) {
				kinds := []syscall.Signal{syscall.SIGHUP, syscall.SIGWINCH, syscall.SIGALRM, syscall.SIGCONT, 35, 36, 50, 64}
				for i := range 1000 {
					mustDo(t, unix.Kill(p.cmd.Process.Pid, kinds[i%len(kinds)]))
				}
				mustDo(t, unix.Kill(p.cmd.Process.Pid, syscall.SIGQUIT)) // the last one, waited for
				waitRecorded(t, signals, syscall.SIGQUIT)
			},
		},
		{
			name:       "after a restart of CMD",
			args:       []string{"sidecar", "--restart", "always"},
			stopSignal: syscall.SIGTERM,
			before: func(t *testing.T, p *tandemProc, signals string, cmdPID int) {
				// The first CMD exits on a SIGTERM sent to it directly; tandem
				// starts a new one after the 1s backoff.
				mustDo(t, unix.Kill(cmdPID, syscall.SIGTERM))
				p.waitEvent("restarting")
				p.waitFor("the second CMD started", func(l kit.Line) bool {
					return l.Is("cmd-started") && l.Num("pid") != cmdPID
				})
				waitLines(t, signals, 3) // ready, 15, ready
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			pids, signals := inDir(dir, "pids"), inDir(dir, "signals")
			// CMD exits once it got the stop signal: it holds tandem's stderr,
			// so the test sees tandem's end only when CMD has gone too.
			stop := strconv.Itoa(int(tt.stopSignal))
			args := tt.args
			if args[0] == "sidecar" {
				// A done file of its own: without one a sidecar holds any
				// `tandem main` of the shared PID namespace, here another
				// test's, and would stop when that one ends.
				args = append(slices.Clone(args), "--done-file", inDir(dir, "done"))
			}
			p := startTandem(t, procOptions{},
				cmdArgs(args, helper("fault-hostpid-record", pids, signals, stop))...)
			cmdPID := killCMDOnCleanup(t, signals)
			if tt.before != nil {
				tt.before(t, p, signals, cmdPID)
			}
			// The CMD running now: the last one started.
			hostPIDs := waitLines(t, pids, 1)
			last, _ := parsePIDLine(hostPIDs[len(hostPIDs)-1], "host")
			cmd := openPidfd(t, last)
			t.Cleanup(cmd.kill) // only if the test failed
			recordedBefore := len(readLines(signals))
			t.Logf("tandem has %d threads when killed", threadCount(t, p.cmd.Process.Pid))

			mustDo(t, p.cmd.Process.Kill())
			// Forwarded signals still queued for CMD (real-time ones are
			// delivered after the SIGQUIT waited for) may come first: wait
			// for the stop signal among what CMD records.
			waitInDir(t, signals, "the stop signal "+stop+" recorded after tandem's SIGKILL", func() bool {
				lines := readLines(signals)
				return len(lines) > recordedBefore && slices.Contains(lines[recordedBefore:], stop)
			})
			if !cmd.exited(testTimeout) {
				t.Error("CMD did not exit on the stop signal")
			}
			if code := p.wait(); code != 128+int(syscall.SIGKILL) {
				t.Fatalf("tandem exited %d, want 137", code)
			}
		})
	}
}

func threadCount(t *testing.T, pid int) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(rest))
			return n
		}
	}
	return -1
}
