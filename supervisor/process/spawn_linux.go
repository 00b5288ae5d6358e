package process

import (
	"cmp"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Start starts argv in its own process group, through the process's one
// Reaper. A failure to start is a *StartError.
func Start(argv []string, opts Options) (*Child, error) {
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
		Files: opts.Files,
		Sys: &syscall.SysProcAttr{
			Setpgid:   true,
			Pdeathsig: syscall.Signal(cmp.Or(opts.DeathSignal, unix.SIGKILL)),
		},
	}
	if attr.Files == nil {
		attr.Files = []uintptr{0, 1, 2}
	}
	if opts.Foreground && terminalIsOurs {
		// The child sets itself as the foreground group between fork and
		// exec, with every signal still blocked, so it can be neither
		// stopped by SIGTTOU nor read the terminal before owning it.
		attr.Sys.Foreground = true
		attr.Sys.Ctty = 0
	}
	pid, w, err := StartReaper().spawn(execPath, execArgv, attr, opts.ReportStops)
	if err != nil {
		return nil, startError(argv[0], err)
	}
	return &Child{Pid: pid, Exited: w.exited, Stopped: w.stopped, Started: time.Now()}, nil
}

// Signal sends sig to the process group pid, or to pid alone. A process that
// is already gone is not an error.
func Signal(pid int, sig unix.Signal, group bool) error {
	target := pid
	if group {
		target = -pid
	}
	err := unix.Kill(target, sig)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// GroupAlive reports whether any process (zombies included) is left in the
// process group pgid.
func GroupAlive(pgid int) bool {
	return !errors.Is(unix.Kill(-pgid, 0), unix.ESRCH)
}
