package process

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/exitcode"
)

// inheritedMaskBlocks is read before the runtime or os/signal can touch the
// main thread: Go's fork restores the mask tandem inherited, so a CMD would
// start with whatever its caller blocked. Then CMD goes through the
// trampoline, which clears the mask and execs it.
var inheritedMaskBlocks = mainThreadBlockedMask() != 0

// mainThreadBlockedMask is the signal mask of the thread running package
// initialisation, which the runtime keeps on the main thread until main
// starts: one rt_sigprocmask, where reading SigBlk from /proc/self/status
// cost a file read and a parse at every start.
func mainThreadBlockedMask() uint64 {
	var mask unix.Sigset_t
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, nil, &mask); err != nil {
		return 0
	}
	// The runtime keeps SIGURG (preemption) unblocked; anything else
	// blocked was inherited.
	return mask.Val[0] &^ (1 << (unix.SIGURG - 1))
}

// ExecUnblocked is the trampoline: clear the signal mask and become CMD. It
// returns only on failure, with the exit code to end with.
func ExecUnblocked(path string, argv []string) int {
	runtime.LockOSThread() // the mask is per thread, and exec keeps this thread's
	var empty unix.Sigset_t
	if err := unix.PthreadSigmask(unix.SIG_SETMASK, &empty, nil); err != nil {
		fmt.Fprintf(os.Stderr, "tandem: clear signal mask: %v\n", err)
		return exitcode.Internal
	}
	err := unix.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "tandem: exec %q: %v\n", path, err)
	return startError(argv[0], err).(*StartError).ExitCode()
}
