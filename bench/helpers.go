package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

// helperArg makes the bench binary impersonate the small programs it
// measures with (as Go's os/exec tests do): CMDs, the floor programs, the
// orphan factory. One binary, nothing to install or build apart.
const helperArg = "__bench-helper"

func helperArgv(self string, args ...string) []string {
	return append([]string{self, helperArg}, args...)
}

// runHelper is main() for a helper; it returns the exit code.
func runHelper(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "bench helper: which one?")
		return 2
	}
	switch args[0] {
	case "sig":
		return helperSig()
	case "floor-inotify":
		return helperFloorInotify(args[1:])
	case "floor-inotify-kill":
		return helperFloorInotifyKill(args[1:])
	case "floor-lifeline-kill":
		return helperFloorLifelineKill(args[1:])
	case "floor-signal":
		return helperFloorSignal()
	case "floor-forward":
		return helperFloorForward(args[1:])
	case "floor-startup":
		return helperFloorStartup(args[1:])
	case "floor-reap":
		return helperFloorReap(args[1:])
	case "lifeline-main":
		if len(args) != 2 {
			fmt.Fprintln(os.Stderr, "lifeline-main DONEFILE")
			return 2
		}
		if err := lifelineMain(args[1], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "lifeline-main:", err)
			return 1
		}
		return 0
	case "needs-cmd":
		return helperNeedsCMD()
	case "orphans":
		return helperOrphans(args[1:])
	case "orphan-parent":
		return helperOrphanParent(args[1:])
	}
	fmt.Fprintf(os.Stderr, "bench helper: unknown %q\n", args[0])
	return 2
}

func writeStdout(s string) {
	_, _ = unix.Write(1, []byte(s))
}

// helperSig is CMD for signal forwarding: "R" once the handler is in place,
// then "1" for every SIGUSR1; "T" for SIGTERM, then exit.
func helperSig() int {
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, unix.SIGUSR1, unix.SIGTERM)
	writeStdout("R")
	for s := range sigs {
		if s == unix.SIGTERM {
			writeStdout("T")
			return 0
		}
		writeStdout("1")
	}
	return 0
}

// helperFloorInotify is what the kernel's inotify teardown costs an exit: a
// Go program that holds one inotify watch on dir, reads events until the
// done file is renamed in, and exits with the watch held. Nothing else: no
// fsnotify, no logging, no child.
func helperFloorInotify(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "floor-inotify DIR NAME")
		return 2
	}
	dir, name := args[0], args[1]
	fd, _, err := watchDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	writeStdout(fmt.Sprintf("%d\n", os.Getpid()))
	waitEvent(fd, name)
	return 0 // exit holding the watch: the exit waits for its teardown
}

// watchDir is the one inotify watch both floors hold, with the events a
// rename or a write into dir produces: the descriptor and the watch.
func watchDir(dir string) (int, int, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return -1, -1, fmt.Errorf("inotify_init1: %w", err)
	}
	wd, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_CLOSE_WRITE)
	if err != nil {
		return -1, -1, fmt.Errorf("inotify_add_watch: %w", err)
	}
	return fd, wd, nil
}

// helperFloorInotifyKill is the floor of "done file → CMD gone": the least a
// Go supervisor can do. It watches dir, starts CMD, and on the rename sends
// SIGTERM straight from the goroutine that read the event, removes its watch
// (so its exit does not wait for the kernel's teardown, as tandem's does
// not), then waits for CMD and exits. No fsnotify, no channels, no logging,
// no status file read.
func helperFloorInotifyKill(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "floor-inotify-kill DIR NAME CMD...")
		return 2
	}
	dir, name, argv := args[0], args[1], args[2:]
	fd, wd, err := watchDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := startCMD(argv)
	if cmd == nil {
		return 1
	}
	waitEvent(fd, name)
	_ = cmd.Process.Signal(unix.SIGTERM)
	_, _ = unix.InotifyRmWatch(fd, uint32(wd))
	_ = cmd.Wait()
	return 0
}

// waitEvent reads inotify events until one names name.
func waitEvent(fd int, name string) {
	var buf [4096]byte
	for {
		n, err := unix.Read(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			if cstring(nameBytes) == name {
				return
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// helperFloorSignal is the floor of the done-signal path: a Go program with
// no inotify watch that exits when SIGUSR2 arrives.
func helperFloorSignal() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGUSR2)
	writeStdout(fmt.Sprintf("%d\n", os.Getpid()))
	<-sigs
	return 0
}

// helperFloorForward is the floor of signal forwarding for a Go init: it
// starts CMD and sends it every SIGUSR1 and SIGTERM it gets, from the
// goroutine os/signal delivers them to. No process group, no logging, no
// reaping but CMD's.
func helperFloorForward(argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "floor-forward CMD...")
		return 2
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, unix.SIGUSR1, unix.SIGTERM)
	cmd := startCMD(argv)
	if cmd == nil {
		return 1
	}
	go func() {
		for sig := range sigs {
			_ = cmd.Process.Signal(sig)
		}
	}()
	_ = cmd.Wait()
	return cmd.ProcessState.ExitCode()
}

// helperFloorStartup is the floor of start-up for a Go init that forwards
// every signal: it catches the signals tandem catches (os/signal, one round
// trip to the runtime's signal thread each), runs CMD and exits with its
// code. No command line, no logging, no reaping but CMD's.
func helperFloorStartup(argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "floor-startup CMD...")
		return 2
	}
	var sigs []os.Signal
	for _, s := range signals.AllForwardable() {
		sigs = append(sigs, s)
	}
	signal.Notify(make(chan os.Signal, 1024), sigs...)
	cmd := startCMD(argv)
	if cmd == nil {
		return 1
	}
	_ = cmd.Wait()
	return cmd.ProcessState.ExitCode()
}

// helperFloorReap is the floor of reaping for a Go init: SIGCHLD through
// os/signal, then wait4(-1, WNOHANG) until nothing is left. It runs CMD (a
// subreaper when not PID 1), passes SIGTERM on to it, and exits with it. No
// command line, no logging, no bookkeeping of who was reaped.
func helperFloorReap(argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "floor-reap CMD...")
		return 2
	}
	if os.Getpid() != 1 {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, unix.SIGCHLD, unix.SIGTERM)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Not os/exec: its Wait would race the wait4(-1) below for CMD.
	cmd, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for sig := range sigs {
		if sig == unix.SIGTERM {
			_ = unix.Kill(cmd, unix.SIGTERM)
			continue
		}
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil || pid <= 0 {
				break
			}
			if pid == cmd {
				return ws.ExitStatus()
			}
		}
	}
	return 1
}

// startCMD starts argv with this process's standard streams, as an init
// starts its CMD; nil, said on stderr, when it cannot.
func startCMD(argv []string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return nil
	}
	return cmd
}

// helperOrphans is CMD for the reaping benchmark. It starts orphan-parent,
// reaps it (it is CMD's own child), then idles until stopped. The
// grandchildren orphan-parent leaves behind are the init's to reap.
func helperOrphans(args []string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	parent := exec.Command(self, append([]string{helperArg, "orphan-parent"}, args...)...)
	parent.Stdin, parent.Stdout, parent.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := parent.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "orphan-parent:", err)
	}
	for {
		time.Sleep(time.Hour)
	}
}

// helperOrphanParent forks N children that exit at once, leaving them as
// its zombies, says "ready" on stdout, and exits when stdin reaches EOF: at
// that moment all N zombies are reparented to the reaper together, the
// storm an init must absorb.
func helperOrphanParent(args []string) int {
	n := 0
	if len(args) == 1 {
		n, _ = strconv.Atoi(args[0])
	}
	if n <= 0 {
		fmt.Fprintln(os.Stderr, "orphan-parent N")
		return 2
	}
	for i := 0; i < n; i++ {
		if _, err := forkAndExit(); err != nil {
			writeStdout(fmt.Sprintf("error after %d forks: %v\n", i, err))
			return 1
		}
	}
	writeStdout(fmt.Sprintf("ready %d\n", n))
	var b [1]byte
	for {
		n, err := unix.Read(0, b[:])
		if err == unix.EINTR {
			continue
		}
		if n <= 0 {
			return 0
		}
	}
}

// forkAndExit forks a child that calls exit_group(0) and nothing else: the
// cheapest process there is, 10,000 of them in about a second, where
// fork+exec of a real program would take ten times as long. The child runs
// no Go code between the two raw system calls (both nosplit assembly), so
// the half-copied runtime in it is never touched.
//
//go:nosplit
func forkAndExit() (int, error) {
	pid, _, errno := unix.RawSyscall6(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	if pid == 0 {
		_, _, _ = unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0) // does not return
	}
	return int(pid), nil
}
