package integration

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// run-tty OUT: write "fg F pgrp G" (the terminal's foreground group on stdin
// and our own group) to OUT, then wait for SIGINT, write "SIGINT", exit 0.
func helperRunTTY(args []string) int {
	ints := make(chan os.Signal, 1)
	signal.Notify(ints, syscall.SIGINT)
	fg, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	if err != nil {
		fg = -1
	}
	appendLine(args[0], fmt.Sprintf("fg %d pgrp %d", fg, unix.Getpgrp()))
	<-ints
	appendLine(args[0], "SIGINT")
	return 0
}

// runOpenPTY opens a pseudo-terminal pair: the master, and the slave to hand a
// process as its controlling terminal. Both close when the test ends.
func runOpenPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	return master, slave
}

// TestRunTerminal: with a terminal on stdin, CMD gets the foreground process
// group, so Ctrl-C reaches it from the terminal itself, not through tandem.
func TestRunTerminal(t *testing.T) {
	master, slave := runOpenPTY(t)
	out := inDir(tempDir(t), "tty")
	// tandem leads a new session whose controlling terminal is the pty, as
	// in a container started with -t.
	p := startTandem(t, procOptions{stdin: slave, attr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}},
		cmdArgs([]string{"run"}, helper("run-tty", out))...)
	runKillGroupOnFailure(t, p, false)
	slave.Close()
	var fg, pgrp int
	if _, err := fmt.Sscanf(waitLines(t, out, 1)[0], "fg %d pgrp %d", &fg, &pgrp); err != nil {
		t.Fatal(err)
	}
	if fg != pgrp {
		t.Fatalf("CMD's group is %d but the terminal's foreground group is %d", pgrp, fg)
	}
	if pgrp == p.cmd.Process.Pid {
		t.Fatalf("CMD runs in tandem's own group %d; it must have its own", pgrp)
	}
	if _, err := master.Write([]byte{0x03}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	if got := waitLines(t, out, 2)[1]; got != "SIGINT" {
		t.Fatalf("CMD recorded %q after Ctrl-C, want SIGINT", got)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want 0", code)
	}
	// The terminal sent SIGINT to the foreground group alone: tandem, in
	// the background, never received one to forward.
	for _, raw := range p.rawLines() {
		if strings.Contains(raw, `"received":"SIGINT"`) {
			t.Fatalf("tandem received the Ctrl-C itself: %s", raw)
		}
	}
}
