package supervisor

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// inheritedMaskBlocks is read before the runtime or os/signal can touch the
// main thread: Go's fork restores the mask tandem inherited, so a CMD would
// start with whatever its caller blocked.
var inheritedMaskBlocks = readMainThreadBlockedMask() != 0

// tandem takes the terminal's foreground only when it holds it itself: a
// tandem started in the background must not steal the terminal from a shell.
var handTerminalToChild = ownsForeground()

func ownsForeground() bool {
	pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

func readMainThreadBlockedMask() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if hex, ok := strings.CutPrefix(line, "SigBlk:"); ok {
			mask, _ := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			// The runtime keeps SIGURG (preemption) unblocked; anything else
			// blocked was inherited.
			return mask &^ (1 << (unix.SIGURG - 1))
		}
	}
	return 0
}

// startProcess starts argv in its own process group. A failure to start
// carries 126 or 127.
func startProcess(r *Reaper, argv []string, opts spawnOptions) (*child, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, startError(argv[0], err)
	}
	execPath, execArgv := path, argv
	if inheritedMaskBlocks {
		execPath = "/proc/self/exe"
		execArgv = append([]string{"tandem", TrampolineArg, path}, argv...)
	}
	attr := &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: opts.files,
		Sys: &syscall.SysProcAttr{
			Setpgid:   true,
			Pdeathsig: syscall.Signal(cmp.Or(opts.deathSignal, killSignal)),
		},
	}
	if attr.Files == nil {
		attr.Files = []uintptr{0, 1, 2}
	}
	if opts.foreground && handTerminalToChild {
		// The child sets itself as the foreground group between fork and
		// exec, with every signal still blocked, so it can be neither
		// stopped by SIGTTOU nor read the terminal before owning it.
		attr.Sys.Foreground = true
		attr.Sys.Ctty = 0
	}
	pid, exited, err := r.Spawn(execPath, execArgv, attr)
	if err != nil {
		return nil, startError(argv[0], err)
	}
	return &child{pid: pid, exited: exited, started: time.Now()}, nil
}

// startError gives the shell's codes: 127 not found, 126 found but not runnable.
func startError(name string, err error) error {
	code := ExitCannotExec
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		code = ExitNotFound
	}
	return &CodedError{Code: code, Err: fmt.Errorf("start %q: %w", name, err)}
}

// ExecUnblocked is the trampoline: clear the signal mask and become CMD.
func ExecUnblocked(path string, argv []string) int {
	runtime.LockOSThread() // the mask is per thread, and exec keeps this thread's
	var empty unix.Sigset_t
	if err := unix.PthreadSigmask(unix.SIG_SETMASK, &empty, nil); err != nil {
		fmt.Fprintf(os.Stderr, "tandem: clear signal mask: %v\n", err)
		return ExitInternal
	}
	err := unix.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "tandem: exec %q: %v\n", path, err)
	return ExitCodeOf(startError(argv[0], err))
}

// signalProcess sends sig to CMD's process group, or CMD alone.
func signalProcess(pid int, sig unix.Signal, groupWide bool) error {
	target := pid
	if groupWide {
		target = -pid
	}
	err := unix.Kill(target, sig)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// groupAlive reports whether any process (zombies included) is left in the
// process group pgid.
func groupAlive(pgid int) bool {
	return !errors.Is(unix.Kill(-pgid, 0), unix.ESRCH)
}
