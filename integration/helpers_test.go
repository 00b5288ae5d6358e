package integration

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// helperArg makes the test binary run a helper program instead of tests:
// `integration.test tandem-test-helper NAME ARGS...`. Tandem supervises
// these as CMD; they report what happened through files that tests wait on.
const helperArg = "tandem-test-helper"

// helpers maps a name to a program: one table of every helper, each
// program written beside the tests that use it (the name's prefix says
// which: run-, sc- for sidecar and main, fault-, peers-).
var helpers = map[string]func(args []string) int{
	"exit":           helperExit,
	"record-signals": helperRecordSignals,
	"ignore-term":    helperIgnoreTerm,
	"sleep":          helperSleep,
	"report-status":  helperReportStatus,
	"cat":            helperCat,
	"die-of":         helperDieOf,
	"mark":           helperMark,

	"run-exec":         helperRunExec,
	"run-leave":        helperRunLeave,
	"run-on-signal":    helperRunOnSignal,
	"run-hold":         helperRunHold,
	"run-die-together": helperRunDieTogether,
	"run-group":        helperRunGroup,
	"run-storm":        helperRunStorm,
	"run-spawn-cats":   helperRunSpawnCats,
	"run-status-wait":  helperRunStatusWait,
	"run-tty":          helperRunTTY,

	"sc-crash-once":           scHelperCrashOnce,
	"sc-observe":              scHelperObserve,
	"sc-hold-inotify":         scHelperHoldInotify,
	"sc-quit-exits":           scHelperQuitExits,
	"sc-stop-on-quit-or-term": scHelperStopOnQuitOrTerm,

	"fault-exec":           faultHelperExec,
	"fault-escape":         faultHelperEscape,
	"fault-escapee":        faultHelperEscapee,
	"fault-hostpid-record": faultHelperHostPIDRecord,
	"fault-probe-hang":     faultHelperProbeHang,
	"fault-ro-root":        faultHelperReadOnlyRoot,
	"fault-ro-volume":      faultHelperReadOnlyVolume,

	"peers-pod":      helperPeersPod,
	"peers-orphaner": helperPeersOrphaner,
	"peers-middle":   helperPeersMiddle,
}

func runHelper(name string, args []string) int {
	fn, ok := helpers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
		return 99
	}
	return fn(args)
}

// exit N: exit with code N.
func helperExit(args []string) int {
	n, _ := strconv.Atoi(args[0])
	return n
}

// mark PATH [CODE]: write "ran" to PATH, exit CODE (0). It proves whether
// CMD was started at all.
func helperMark(args []string) int {
	appendLine(args[0], "ran")
	code := 0
	if len(args) > 1 {
		code, _ = strconv.Atoi(args[1])
	}
	return code
}

// die-of N: die of signal N, as a C program without handlers would.
func helperDieOf(args []string) int {
	n, _ := strconv.Atoi(args[0])
	sig := unix.Signal(n)
	// The runtime's handler would ignore a SIGSEGV sent by kill, for one.
	// SIGKILL's action is fixed already.
	if sig != unix.SIGKILL {
		if err := setDefaultAction(sig); err != nil {
			fmt.Fprintln(os.Stderr, "die-of:", err)
			return 95
		}
	}
	// No core file for SIGQUIT, SIGSEGV and friends.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	runtime.LockOSThread()
	var set unix.Sigset_t
	set.Val[(sig-1)/64] |= 1 << ((sig - 1) % 64)
	_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	select {} // the signal is pending on this very thread; death follows
}

// setDefaultAction puts back sig's default action with the raw system call:
// the Go runtime has a handler for nearly every signal (and signal.Reset
// restores an inherited SIG_IGN). An all-zero struct sigaction is SIG_DFL,
// no flags, empty mask.
func setDefaultAction(sig unix.Signal) error {
	var act [4]uint64
	if _, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0); errno != 0 {
		return fmt.Errorf("sigaction %d: %w", sig, errno)
	}
	return nil
}

// appendLine appends one line to path with a single write (O_APPEND), so a
// reader never sees half a line.
func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(98)
	}
	defer f.Close()
	_, _ = f.Write([]byte(line + "\n"))
}

// allSignals is every signal a helper can catch (not KILL, STOP, URG which
// the Go runtime owns, or 32/33).
func allSignals() []os.Signal {
	var sigs []os.Signal
	for s := syscall.Signal(1); s <= 64; s++ {
		switch s {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGURG, 32, 33:
			continue
		}
		sigs = append(sigs, s)
	}
	return sigs
}

// record-signals OUT [EXIT-SIGNAL [CODE]]: write "ready PID" to OUT, then one
// line per signal received (its number). On EXIT-SIGNAL, exit with CODE
// (default 0); without EXIT-SIGNAL it runs until killed. SIGCHLD is not
// recorded: the helper's own children would add noise.
func helperRecordSignals(args []string) int {
	out := args[0]
	exitOn, code := 0, 0
	if len(args) > 1 {
		exitOn, _ = strconv.Atoi(args[1])
	}
	if len(args) > 2 {
		code, _ = strconv.Atoi(args[2])
	}
	ch := make(chan os.Signal, 4096)
	signal.Notify(ch, allSignals()...)
	appendLine(out, fmt.Sprintf("ready %d", os.Getpid()))
	for s := range ch {
		sig := s.(syscall.Signal)
		if sig == syscall.SIGCHLD {
			continue
		}
		appendLine(out, strconv.Itoa(int(sig)))
		if int(sig) == exitOn {
			return code
		}
	}
	return 0
}

// ignore-term OUT: ignore SIGTERM, write "ready PID", run until killed.
func helperIgnoreTerm(args []string) int {
	signal.Ignore(syscall.SIGTERM)
	appendLine(args[0], fmt.Sprintf("ready %d", os.Getpid()))
	select {}
}

// sleep: run until killed, with default signal dispositions.
func helperSleep([]string) int {
	select {}
}

// report-status OUT: write the Sig* lines of /proc/self/status (blocked,
// ignored, caught masks) and the process group facts, then exit 0.
func helperReportStatus(args []string) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 97
	}
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "Sig") || strings.HasPrefix(line, "PPid") {
			lines = append(lines, line)
		}
	}
	pgrp := syscall.Getpgrp()
	lines = append(lines, fmt.Sprintf("Pgrp:\t%d", pgrp), fmt.Sprintf("Pid:\t%d", os.Getpid()))
	appendLine(args[0], strings.Join(lines, "\n"))
	return 0
}

// cat: copy stdin to stdout, line by line, then exit 0.
func helperCat([]string) int {
	reader := bufio.NewReader(os.Stdin)
	if _, err := io.Copy(os.Stdout, reader); err != nil {
		return 1
	}
	return 0
}
