package process

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/exitcode"
)

// inheritedMaskBlocks is read before the runtime or os/signal can touch the
// main thread: Go's fork restores the mask tandem inherited, so a CMD would
// start with whatever its caller blocked. Then CMD goes through the
// trampoline, which clears the mask and execs it.
var inheritedMaskBlocks = readMainThreadBlockedMask() != 0

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
