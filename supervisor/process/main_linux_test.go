package process

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The children these tests start are this test binary itself, run as one
// of helperCommands (os/exec's own tests do the same): no shell or
// coreutils needed, and each child does exactly what its test names.

// helperEnv marks a child started by the tests: it runs a helper command
// instead of the tests. Start hands children this process's environment.
const helperEnv = "TANDEM_PROCESS_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "" {
		os.Setenv(helperEnv, "1")
		// Under -race a child would wait a second at exit for late reports.
		os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		os.Exit(m.Run())
	}
	args := os.Args[1:]
	// Start goes through the trampoline, this binary, when the tests run
	// with signals blocked: as tandem's main does, it execs the child.
	if len(args) > 2 && args[0] == TrampolineArg {
		os.Exit(ExecUnblocked(args[1], args[2:]))
	}
	if len(args) == 0 || helperCommands[args[0]] == nil {
		fmt.Fprintf(os.Stderr, "process test helper: unknown command %q\n", args)
		os.Exit(2)
	}
	os.Exit(helperCommands[args[0]](args[1:]...))
}

// testBinary is the path of this test binary.
func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// helper is the argv that runs helper command cmd with args.
func helper(t *testing.T, cmd string, args ...string) []string {
	t.Helper()
	return append([]string{testBinary(t), cmd}, args...)
}

// helperCommands each return the child's exit code.
var helperCommands = map[string]func(args ...string) int{
	// exit CODE
	"exit": func(args ...string) int {
		code, _ := strconv.Atoi(args[0])
		return code
	},
	// kill SIG CODE: the child sends SIG (a number) to its own thread, so
	// that it is taken before the call returns (a stop, a default death),
	// then exits CODE if it lives on.
	"kill": func(args ...string) int {
		runtime.LockOSThread()
		sig, _ := strconv.Atoi(args[0])
		if err := unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.Signal(sig)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		code, _ := strconv.Atoi(args[1])
		return code
	},
	// pgid prints the child's process group.
	"pgid": func(...string) int {
		fmt.Println(unix.Getpgrp())
		return 0
	},
	// echo OUT ERR writes a line to stdout, then one to stderr.
	"echo": func(args ...string) int {
		fmt.Fprintln(os.Stdout, args[0])
		fmt.Fprintln(os.Stderr, args[1])
		return 0
	},
	// spawn wait|exit starts an idle grandchild in the child's group,
	// prints its pid, then waits for it or exits at once (orphaning it).
	"spawn": func(args ...string) int {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		idle := exec.Command(exe, "idle")
		if err := idle.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(idle.Process.Pid)
		if args[0] == "wait" {
			_ = idle.Wait()
		}
		return 0
	},
	// idle runs until killed, as `sleep 1000` would.
	"idle": func(...string) int {
		time.Sleep(1000 * time.Second)
		return 0
	},
}
