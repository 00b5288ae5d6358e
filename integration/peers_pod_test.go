package integration

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
	"golang.org/x/sys/unix"
)

// A "pod" for the --signal-peers tests: a fresh PID namespace with its own
// /proc (unshare --pid --fork --mount-proc), so the tandems inside see the
// processes of their pod only, as under `shareProcessNamespace: true`, and
// neither disturb nor are disturbed by the tests running beside them.
//
// PID 1 of the namespace is the peers-pod helper, standing in for the pause
// container: it starts the containers' processes as its children (so none of
// them is PID 1, as in a real pod) and obeys one JSON command per line on its
// stdin. It reports each command and each exit as a JSON log line on stderr,
// which it shares with its children, so the test reads the pod's events and
// every tandem's log lines from one stream, in the order they happened.
// Each tandem is told apart by its "mode" (sidecar, main, done) and "name".

// podCommand is one line on the pod's stdin.
type podCommand struct {
	Seq  int      `json:"seq"`
	Op   string   `json:"op"` // start, signal, stop, cont, inspect, kill-wait, or one of podOps
	ID   string   `json:"id,omitempty"`
	Path string   `json:"path,omitempty"` // start: program; argv[0] when empty
	Argv []string `json:"argv,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	UID  int      `json:"uid,omitempty"` // start: run as this uid and gid when not 0
	PID  int      `json:"pid,omitempty"`
	Sig  int      `json:"sig,omitempty"`
	// start-traced: where to hold the process (peers_race_test.go).
	Stage string `json:"stage,omitempty"`
}

// podLog writes one JSON line; a single write, so it never interleaves with
// the children's lines on the shared stderr pipe.
func podLog(fields map[string]any) {
	data, _ := json.Marshal(fields)
	_, _ = os.Stderr.Write(append(data, '\n'))
}

// podOps are extra pod commands that other test files add in init(). They
// run on the pod's one locked OS thread, so a process started by one (with
// Ptrace) can be traced by another.
var podOps = map[string]func(c podCommand, pid int, reply func(map[string]any), track func(id string, cmd *exec.Cmd)){}

// peers-pod: PID 1 of the pod. Its stdin carries podCommands until EOF.
func helperPeersPod([]string) int {
	// ptrace requests must come from the thread that started the tracee.
	runtime.LockOSThread()
	var (
		mu    sync.Mutex
		procs = map[string]*exec.Cmd{}
	)
	reply := func(c podCommand, fields map[string]any) {
		fields["message"] = "pod: " + c.Op
		fields["seq"] = c.Seq
		podLog(fields)
	}
	// track records a started process and reports its exit.
	track := func(id string, cmd *exec.Cmd) {
		mu.Lock()
		procs[id] = cmd
		mu.Unlock()
		go func() {
			err := cmd.Wait()
			podLog(map[string]any{"message": "pod: exited", "id": id, "pid": cmd.Process.Pid,
				"exit_code": exitCodeOf(cmd.ProcessState, err)})
		}()
	}
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		var c podCommand
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			podLog(map[string]any{"message": "pod: bad command", "error": err.Error()})
			return 2
		}
		mu.Lock()
		proc := procs[c.ID]
		mu.Unlock()
		pid := c.PID
		if proc != nil {
			pid = proc.Process.Pid
		}
		switch c.Op {
		case "start":
			path := c.Path
			if path == "" {
				path = c.Argv[0]
			}
			if resolved, err := exec.LookPath(path); err == nil {
				path = resolved
			}
			// argv[0] may differ from the program, as with `exec -a`.
			cmd := &exec.Cmd{Path: path, Args: c.Argv, Dir: c.Dir, Stdout: os.Stdout, Stderr: os.Stderr}
			if c.UID != 0 {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(c.UID), Gid: uint32(c.UID)}}
			}
			if err := cmd.Start(); err != nil {
				reply(c, map[string]any{"error": err.Error()})
				continue
			}
			track(c.ID, cmd)
			reply(c, map[string]any{"id": c.ID, "pid": cmd.Process.Pid})
		case "signal", "cont":
			sig := syscall.Signal(c.Sig)
			if c.Op == "cont" {
				sig = syscall.SIGCONT
			}
			reply(c, map[string]any{"pid": pid, "error": errText(syscall.Kill(pid, sig))})
		case "stop":
			// Stopped for sure once the pod, its parent, is told so.
			err := syscall.Kill(pid, syscall.SIGSTOP)
			if err == nil {
				var info unix.Siginfo
				err = unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED, nil)
			}
			reply(c, map[string]any{"pid": pid, "error": errText(err)})
		case "inspect":
			reply(c, inspectProc(pid))
		case "kill-wait":
			// Signal a process that is not the pod's child and wait for its
			// exit: a pidfd becomes readable when the process ends.
			reply(c, map[string]any{"pid": pid, "error": errText(killAndWaitExit(pid, syscall.Signal(c.Sig)))})
		default:
			op, ok := podOps[c.Op]
			if !ok {
				reply(c, map[string]any{"error": "unknown op"})
				continue
			}
			op(c, pid, func(fields map[string]any) { reply(c, fields) }, track)
		}
	}
	return 0
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// inspectProc reports a process's parent and state from this pod's /proc, or
// that it is gone (exited and reaped).
func inspectProc(pid int) map[string]any {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]any{"pid": pid, "gone": true}
	}
	if err != nil {
		return map[string]any{"pid": pid, "error": err.Error()}
	}
	fields := map[string]any{"pid": pid, "gone": false}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, _ := strings.Cut(line, ":")
		switch key {
		case "State":
			fields["state"] = strings.TrimSpace(value)
		case "PPid":
			fields["ppid"], _ = strconv.Atoi(strings.TrimSpace(value))
		}
	}
	return fields
}

func killAndWaitExit(pid int, sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil {
		return err
	}
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			return err
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			return nil
		}
	}
}

// peers-orphaner OUT: start peers-middle, which starts a grandchild and exits
// at once, orphaning it; once the middle is reaped, write "middle-exited" and
// run until killed (default dispositions).
func helperPeersOrphaner(args []string) int {
	middle := exec.Command(selfExe(), helperArg, "peers-middle", args[0])
	if err := middle.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "peers-orphaner:", err)
		return 97
	}
	appendLine(args[0], "middle-exited")
	select {}
}

// peers-middle OUT: start a grandchild (the sleep helper), write
// "grandchild PID", exit without waiting for it.
func helperPeersMiddle(args []string) int {
	grandchild := exec.Command(selfExe(), helperArg, "sleep")
	if err := grandchild.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peers-middle:", err)
		return 97
	}
	appendLine(args[0], fmt.Sprintf("grandchild %d", grandchild.Process.Pid))
	return 0
}

// selfExe, inside a helper: the test binary itself (helperBin is only set in
// the test process).
func selfExe() string {
	self, err := os.Executable()
	if err != nil {
		return "/proc/self/exe"
	}
	return self
}

// ---- the test side ----

var (
	podProbeOnce sync.Once
	podProbeErr  error
)

// requirePod skips the test, saying why, where a PID namespace with its own
// /proc cannot be made (not root, no unshare, seccomp, nested sandboxes).
func requirePod(t testing.TB) {
	t.Helper()
	podProbeOnce.Do(func() {
		out, err := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "/bin/true").CombinedOutput()
		if err != nil {
			podProbeErr = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
		}
	})
	if podProbeErr != nil {
		t.Skipf("cannot create a PID namespace with its own /proc (unshare --pid --fork --mount-proc: %v); run the tests as root with util-linux", podProbeErr)
	}
}

// pod is a running peers-pod, with tandem's log parser over its stderr.
type pod struct {
	*tandemProc
	t     testing.TB
	stdin *os.File
	seqMu sync.Mutex
	seq   int
}

// startPod starts an empty pod. It is killed, with everything in it, when
// the test ends (unshare --kill-child; PID 1 gone ends the namespace).
func startPod(t testing.TB) *pod {
	t.Helper()
	requirePod(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// startTandem runs prefix + tandem binary: the pod ignores that last
	// argument and starts what it is told on stdin.
	prefix := []string{"unshare", "--pid", "--fork", "--mount-proc", "--kill-child",
		helperBin, helperArg, "peers-pod"}
	p := startTandem(t, procOptions{prefix: prefix, stdin: r})
	r.Close()
	t.Cleanup(func() { w.Close() })
	return &pod{tandemProc: p, t: t, stdin: w}
}

// do sends one command and waits for the pod's answer to it.
func (p *pod) do(c podCommand) kit.Line {
	p.t.Helper()
	p.seqMu.Lock()
	p.seq++
	c.Seq = p.seq
	p.seqMu.Unlock()
	data, _ := json.Marshal(c)
	if _, err := p.stdin.Write(append(data, '\n')); err != nil {
		p.t.Fatalf("pod command %s: %v", data, err)
	}
	answer := p.waitFor(fmt.Sprintf("pod answer to %s", data), func(l kit.Line) bool {
		return l.Field("message") == "pod: "+c.Op && l.Num("seq") == c.Seq
	})
	if e := answer.Field("error"); e != "" {
		p.t.Fatalf("pod command %s failed: %s", data, e)
	}
	return answer
}

// start starts a process in the pod and returns its pid there.
func (p *pod) start(id string, argv ...string) int {
	p.t.Helper()
	return p.do(podCommand{Op: "start", ID: id, Argv: argv}).Num("pid")
}

// startAs is start with a uid (and the same gid), a program path apart from
// argv[0], and a working directory.
func (p *pod) startAs(c podCommand) int {
	p.t.Helper()
	c.Op = "start"
	return p.do(c).Num("pid")
}

// exitCode waits for process id to exit and returns its code (128+N when
// killed by signal N).
func (p *pod) exitCode(id string) int {
	p.t.Helper()
	return p.waitFor(fmt.Sprintf("exit of %s", id), func(l kit.Line) bool {
		return l.Field("message") == "pod: exited" && l.Field("id") == id
	}).Num("exit_code")
}

// wantExit waits for the exit of process id and fails unless it exited
// with code want.
func (p *pod) wantExit(id string, want int) {
	p.t.Helper()
	if code := p.exitCode(id); code != want {
		p.t.Fatalf("%s exited %d, want %d", id, code, want)
	}
}

// tandemLine waits for a log line of the tandem in mode (and name, when not
// empty) with this message.
func (p *pod) tandemLine(mode, name, msg string) kit.Line {
	p.t.Helper()
	return p.waitFor(fmt.Sprintf("%q from tandem %s %s", msg, mode, name), func(l kit.Line) bool {
		return l.Field("mode") == mode && (name == "" || l.Field("name") == name) && l.Is(msg)
	})
}

// tandemLines returns the lines so far of the tandem in mode/name with msg.
func (p *pod) tandemLines(mode, name, msg string) []kit.Line {
	p.tandemProc.mu.Lock()
	defer p.tandemProc.mu.Unlock()
	var out []kit.Line
	for _, l := range p.lines {
		if l.Field("mode") == mode && (name == "" || l.Field("name") == name) && l.Is(msg) {
			out = append(out, l)
		}
	}
	return out
}

// signaledPeers returns the peer_pids that the tandem in mode/name logged as
// signaled.
func (p *pod) signaledPeers(mode, name string) []int {
	var pids []int
	for _, l := range p.tandemLines(mode, name, "peer-signaled") {
		pids = append(pids, l.Num("peer_pid"))
	}
	return pids
}

// sidecarArgv is `tandem sidecar [flags] -- CMD` with tandem's full path, as a
// container's command would be.
func sidecarArgv(flags []string, cmd ...string) []string {
	return append([]string{tandemBin, "sidecar"}, cmdArgs(flags, cmd)...)
}
