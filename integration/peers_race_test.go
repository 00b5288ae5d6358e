//go:build amd64

package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A sidecar is visible in /proc as `tandem sidecar ...` from its exec, but it
// can only receive the done signal once supervisor.Run has registered its
// handlers, about 1 to 1.5 ms later on an idle 2-core machine:
//   - before the Go runtime installs its handlers (the first few hundred
//     microseconds), SIGUSR2 has its default action and would kill the
//     sidecar tandem (exit 140, the pod fails);
//   - after that and before signal.Notify, the runtime catches SIGUSR2 and
//     drops it: the sidecar would run on and the Job never complete.
//
// tandem closes both windows: a listening sidecar names one of its threads
// tandem-ready, and --signal-peers waits for that name. These tests hold the
// sidecar at each point with ptrace, so the window is certain: `done` must
// keep looking (and say so) instead of signalling, then stop the sidecar once
// it is let go.
func TestPeersDoneSignalBeforeSidecarListens(t *testing.T) {
	t.Parallel()
	for _, stage := range []string{
		"exec",    // right after exec: default disposition
		"handler", // Go's handler installed, signal.Notify not yet called
	} {
		t.Run(stage, func(t *testing.T) {
			t.Parallel()
			p := startPod(t)
			out := inDir(tempDir(t), "signals")
			sidecarPID := p.do(podCommand{Op: "start-traced", ID: "sidecar", Stage: stage,
				Argv: sidecarArgv(nil, helper("record-signals", out, "15")...)}).Num("pid")

			p.start("done", tandemBin, "done", "--signal-peers")
			p.tandemLine("done", "", "peers-looking")
			if got := p.signaledPeers("done", ""); len(got) != 0 {
				t.Fatalf("done signaled %v while the sidecar could not receive it", got)
			}
			p.do(podCommand{Op: "detach", ID: "sidecar"})
			p.wantExit("done", 0)
			if got := p.signaledPeers("done", ""); !slices.Equal(got, []int{sidecarPID}) {
				t.Fatalf("done signaled %v, want the sidecar [%d]", got, sidecarPID)
			}
			if code := p.exitCode("sidecar"); code != 0 {
				t.Fatalf("sidecar exited %d, want 0: the done signal must stop it", code)
			}
		})
	}
}

func init() {
	podOps["start-traced"] = podStartTraced
	podOps["detach"] = podDetach
}

// tracees are the processes held by start-traced, until detach.
var tracees = map[string]*exec.Cmd{}

// start-traced: start argv under ptrace and hold it stopped, at "exec" (the
// SIGTRAP after exec, before any of its code ran) or at "handler" (just after
// the Go runtime installed its SIGUSR2 handler, rt_sigaction(SIGUSR2, act)).
func podStartTraced(c podCommand, _ int, reply func(map[string]any), _ func(string, *exec.Cmd)) {
	cmd := &exec.Cmd{Path: c.Argv[0], Args: c.Argv, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Ptrace: true}}
	if err := cmd.Start(); err != nil {
		reply(map[string]any{"error": err.Error()})
		return
	}
	pid := cmd.Process.Pid
	if err := holdTracee(pid, c.Stage); err != nil {
		reply(map[string]any{"error": err.Error()})
		return
	}
	tracees[c.ID] = cmd
	reply(map[string]any{"id": c.ID, "pid": pid})
}

func holdTracee(pid int, stage string) error {
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, unix.WALL, nil); err != nil || !ws.Stopped() {
		return fmt.Errorf("tracee %d at exec: %v %v", pid, ws, err)
	}
	// EXITKILL: the tracee dies with the pod; TRACESYSGOOD tells syscall
	// stops from signals.
	if err := unix.PtraceSetOptions(pid, unix.PTRACE_O_EXITKILL|unix.PTRACE_O_TRACESYSGOOD); err != nil {
		return err
	}
	if stage == "exec" {
		return nil
	}
	inject, entering := 0, false
	for {
		if err := unix.PtraceSyscall(pid, inject); err != nil {
			return err
		}
		inject = 0
		if _, err := unix.Wait4(pid, &ws, unix.WALL, nil); err != nil {
			return err
		}
		if !ws.Stopped() {
			return fmt.Errorf("tracee %d ended before installing its handler: %v", pid, ws)
		}
		if ws.StopSignal() != syscall.SIGTRAP|0x80 {
			inject = int(ws.StopSignal()) // a signal for the tracee: pass it on
			continue
		}
		entering = !entering
		var regs unix.PtraceRegs
		if err := unix.PtraceGetRegs(pid, &regs); err != nil {
			return err
		}
		if !entering && regs.Orig_rax == unix.SYS_RT_SIGACTION && regs.Rdi == uint64(unix.SIGUSR2) && regs.Rsi != 0 {
			return nil
		}
	}
}

// detach: let a start-traced process run on, and report its exit.
func podDetach(c podCommand, _ int, reply func(map[string]any), track func(string, *exec.Cmd)) {
	cmd, ok := tracees[c.ID]
	if !ok {
		reply(map[string]any{"error": errors.New("not traced").Error()})
		return
	}
	if err := unix.PtraceDetach(cmd.Process.Pid); err != nil {
		reply(map[string]any{"error": err.Error()})
		return
	}
	delete(tracees, c.ID)
	track(c.ID, cmd)
	reply(map[string]any{"id": c.ID})
}
