package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// proc is a process the bench started: its stdout is a blocking pipe read
// with poll(2) and read(2) on the calling thread, and its exit is watched
// through a pidfd. Both wake the waiting thread straight from the kernel;
// Go's netpoller would add a goroutine hand-off to every timestamp.
type proc struct {
	cmd   *exec.Cmd
	pidfd int
	out   int // read end of the child's stdout; -1 when not captured
	in    *os.File
}

type procOptions struct {
	stdinPipe bool // give the child a pipe as stdin; closing p.in is its EOF
	sys       *syscall.SysProcAttr
	dir       string
	stderr    *os.File // nil: /dev/null
}

func startProc(argv []string, opts procOptions) (*proc, error) {
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	w := os.NewFile(uintptr(pipe[1]), "stdout")
	p := &proc{out: pipe[0], pidfd: -1}
	cmd := &exec.Cmd{Path: argv[0], Args: argv, Env: cleanEnv(), Stdout: w, Dir: opts.dir, SysProcAttr: opts.sys}
	if opts.stderr != nil {
		cmd.Stderr = opts.stderr
	}
	var stdinR *os.File
	if opts.stdinPipe {
		r, in, err := os.Pipe()
		if err != nil {
			w.Close()
			unix.Close(pipe[0])
			return nil, err
		}
		cmd.Stdin, p.in, stdinR = r, in, r
	}
	err := cmd.Start()
	// The child holds its own copies; ours would hide its EOF.
	w.Close()
	if stdinR != nil {
		stdinR.Close()
	}
	if err != nil {
		unix.Close(pipe[0])
		if p.in != nil {
			p.in.Close()
		}
		return nil, err
	}
	p.cmd = cmd
	p.pidfd, err = unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("pidfd_open %d: %w", cmd.Process.Pid, err)
	}
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// kill ends the process if it still runs and reaps it.
func (p *proc) kill() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(unix.SIGKILL)
	p.wait()
}

// wait reaps the process and releases every descriptor.
func (p *proc) wait() {
	_ = p.cmd.Wait()
	if p.pidfd >= 0 {
		unix.Close(p.pidfd)
		p.pidfd = -1
	}
	if p.out >= 0 {
		unix.Close(p.out)
		p.out = -1
	}
	if p.in != nil {
		p.in.Close()
		p.in = nil
	}
}

// stop asks politely, then kills after timeout; used to tear down after a
// measurement, never during one.
func (p *proc) stop(sig unix.Signal, timeout time.Duration) {
	_ = unix.Kill(p.pid(), sig)
	if _, err := waitReadable(time.Now().Add(timeout), p.pidfd); err != nil {
		_ = p.cmd.Process.Signal(unix.SIGKILL)
	}
	p.wait()
}

// pidNamespace is what starts a process as PID 1 of a new PID namespace,
// as in a container; an error when the bench may not (not root).
func pidNamespace() (*syscall.SysProcAttr, error) {
	sys := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	probe := exec.Command("/bin/true")
	probe.SysProcAttr = sys
	if err := probe.Run(); err != nil {
		return nil, err
	}
	return sys, nil
}

var errTimeout = errors.New("timed out")

// waitReadable waits until every fd is readable (a pidfd: the process has
// exited; a pipe: data or EOF) and returns when each was first seen so.
func waitReadable(deadline time.Time, fds ...int) ([]time.Time, error) {
	seen := make([]time.Time, len(fds))
	pfds := make([]unix.PollFd, 0, len(fds))
	idx := make([]int, 0, len(fds))
	for {
		pfds, idx = pfds[:0], idx[:0]
		for i, fd := range fds {
			if seen[i].IsZero() {
				pfds = append(pfds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
				idx = append(idx, i)
			}
		}
		if len(pfds) == 0 {
			return seen, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return seen, errTimeout
		}
		n, err := unix.Poll(pfds, int(left/time.Millisecond)+1)
		now := time.Now()
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return seen, err
		}
		if n == 0 {
			continue
		}
		for j, pfd := range pfds {
			if pfd.Revents != 0 {
				seen[idx[j]] = now
			}
		}
	}
}

// exited reports, without waiting, whether the pidfd's process is gone.
func exited(pidfd int) bool {
	pfd := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, _ := unix.Poll(pfd, 0)
	return n > 0
}

// readByte waits for one byte on a blocking pipe.
func readByte(fd int, deadline time.Time) (byte, error) {
	if _, err := waitReadable(deadline, fd); err != nil {
		return 0, err
	}
	var b [1]byte
	for {
		n, err := unix.Read(fd, b[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errors.New("EOF: the process closed its stdout (exited?)")
		}
		return b[0], nil
	}
}

// readLine reads up to a newline; helpers write short lines in one write.
func readLine(fd int, deadline time.Time) (string, error) {
	var sb strings.Builder
	for {
		b, err := readByte(fd, deadline)
		if err != nil {
			return sb.String(), err
		}
		if b == '\n' {
			return sb.String(), nil
		}
		sb.WriteByte(b)
	}
}

// readPID reads the pid line a helper writes once it is running.
func readPID(fd int, deadline time.Time) (int, error) {
	line, err := readLine(fd, deadline)
	if err != nil {
		return 0, fmt.Errorf("read pid: %w (got %q)", err, line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, fmt.Errorf("read pid: %q: %w", line, err)
	}
	return pid, nil
}
