package process

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

func TestStartExitStatus(t *testing.T) {
	exe := testBinary(t)
	// A bare name is looked up on PATH.
	t.Setenv("PATH", filepath.Dir(exe)+string(filepath.ListSeparator)+os.Getenv("PATH"))
	for _, tt := range []struct {
		name string
		argv []string
		want Status
	}{
		{"exit 0", helper(t, "exit", "0"), Status{}},
		{"exit 7", helper(t, "exit", "7"), Status{Code: 7}},
		{"exit 255", helper(t, "exit", "255"), Status{Code: 255}},
		{"looked up on PATH", []string{filepath.Base(exe), "exit", "3"}, Status{Code: 3}},
		{"killed by TERM", helper(t, "kill", strconv.Itoa(int(unix.SIGTERM)), "1"), Status{Signal: unix.SIGTERM}},
		{"killed by KILL", helper(t, "kill", strconv.Itoa(int(unix.SIGKILL)), "1"), Status{Signal: unix.SIGKILL}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, tt.argv, Options{})
			if c.Pid <= 0 || c.Started.IsZero() {
				t.Errorf("child pid %d started %v", c.Pid, c.Started)
			}
			if got := receive(t, c.Exited, "exit status"); got != tt.want {
				t.Errorf("status %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestStartOwnGroup: the child leads a process group of its own, so that
// signals to the group reach CMD's children and nothing of the caller's.
func TestStartOwnGroup(t *testing.T) {
	c, out := startWithStdout(t, helper(t, "pgid"), Options{})
	if pgid := readPid(t, out); pgid != c.Pid {
		t.Errorf("child's process group %d, want its own pid %d", pgid, c.Pid)
	}
	receive(t, c.Exited, "exit status")
}

func TestStartFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := start(t, helper(t, "echo", "to-stdout", "to-stderr"), Options{Files: []uintptr{0, f.Fd(), f.Fd()}})
	if st := receive(t, c.Exited, "exit status"); st != (Status{}) {
		t.Fatalf("status %+v", st)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "to-stdout\nto-stderr\n" {
		t.Errorf("the redirected file holds %q (%v), want both lines", data, err)
	}
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, prog string
		code       int
	}{
		{"missing path", filepath.Join(dir, "no-such-program"), 127},
		{"not on PATH", "tandem-no-such-program-xyz", 127},
		{"not executable", notExec, 126},
		{"a directory", dir, 126},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Start([]string{tt.prog}, Options{})
			if err == nil {
				_ = Signal(c.Pid, unix.SIGKILL, true)
				t.Fatalf("Start(%q) succeeded", tt.prog)
			}
			var se *StartError
			if !errors.As(err, &se) || se.ExitCode() != tt.code || se.NotFound != (tt.code == 127) {
				t.Fatalf("Start(%q): %#v, want a *StartError with code %d", tt.prog, err, tt.code)
			}
			if !strings.Contains(err.Error(), strconv.Quote(tt.prog)) || errors.Unwrap(err) == nil {
				t.Errorf("error %q does not name %q or hide its cause", err, tt.prog)
			}
		})
	}
}

// TestStartReportsStops: a child that asked is told when job control stops
// it; it is not taken for exited, and continues and dies as usual.
func TestStartReportsStops(t *testing.T) {
	c := start(t, helper(t, "kill", strconv.Itoa(int(unix.SIGTSTP)), "4"), Options{ReportStops: true})
	if sig := receive(t, c.Stopped, "stop"); sig != unix.SIGTSTP {
		t.Errorf("stopped by %v, want SIGTSTP", sig)
	}
	select {
	case st := <-c.Exited:
		t.Fatalf("a stopped child reported as exited: %+v", st)
	default:
	}
	if err := Signal(c.Pid, unix.SIGCONT, false); err != nil {
		t.Fatal(err)
	}
	if st := receive(t, c.Exited, "exit status"); st != (Status{Code: 4}) {
		t.Errorf("after SIGCONT: %+v, want exit 4", st)
	}
	// Without ReportStops there is no channel to read.
	if quiet := start(t, helper(t, "exit", "0"), Options{}); quiet.Stopped != nil {
		t.Error("Stopped is set without ReportStops")
	}
}

// TestSignalAndGroupAlive: Signal reaches the leader alone or its whole
// group; GroupAlive sees what is left of the group; a gone process is not an
// error.
func TestSignalAndGroupAlive(t *testing.T) {
	if err := BecomeSubreaper(); err != nil { // the orphaned grandchild comes back to be reaped
		t.Fatal(err)
	}
	c, out := startWithStdout(t, helper(t, "spawn", "wait"), Options{})
	idle := readPid(t, out)
	if !GroupAlive(c.Pid) {
		t.Fatal("GroupAlive false for a running group")
	}
	if err := Signal(c.Pid, unix.SIGKILL, false); err != nil {
		t.Fatal(err)
	}
	if st := receive(t, c.Exited, "exit status"); st.Signal != unix.SIGKILL {
		t.Fatalf("leader status %+v, want killed", st)
	}
	if processGone(idle) || !GroupAlive(c.Pid) {
		t.Fatal("signalling the leader alone reached the rest of its group")
	}
	if err := Signal(c.Pid, unix.SIGKILL, true); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the orphan reaped", func() bool { return processGone(idle) })
	if GroupAlive(c.Pid) {
		t.Error("GroupAlive true for an empty group")
	}
	for _, group := range []bool{false, true} {
		if err := Signal(c.Pid, unix.SIGTERM, group); err != nil {
			t.Errorf("Signal to a gone process (group %v): %v, want nil", group, err)
		}
	}
}

// TestReaperReapsOrphans: as a subreaper, an orphan that exits is reaped (no
// zombie left), though nobody watches it.
func TestReaperReapsOrphans(t *testing.T) {
	if err := BecomeSubreaper(); err != nil {
		t.Fatal(err)
	}
	c, out := startWithStdout(t, helper(t, "spawn", "exit"), Options{})
	orphan := readPid(t, out)
	receive(t, c.Exited, "exit status")
	if err := Signal(orphan, unix.SIGKILL, false); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the orphan reaped", func() bool { return processGone(orphan) })
}

func TestStartReaperIsOne(t *testing.T) {
	first := StartReaper()
	var wg sync.WaitGroup
	others := make([]*Reaper, 8)
	for i := range others {
		wg.Go(func() { others[i] = StartReaper() })
	}
	wg.Wait()
	for i, r := range others {
		if r != first {
			t.Errorf("StartReaper call %d returned another reaper", i+2)
		}
	}
}

func TestNameThread(t *testing.T) {
	const name = "tandem-test-nm"
	if err := StartReaper().NameThread(name); err != nil {
		t.Fatal(err)
	}
	comms, err := filepath.Glob("/proc/self/task/*/comm")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, path := range comms {
		data, err := os.ReadFile(path)
		if err == nil && strings.TrimSpace(string(data)) == name {
			found++
		}
	}
	if found != 1 {
		t.Errorf("%d threads named %q, want the locked one", found, name)
	}
	if err := StartReaper().NameThread("bad\x00name"); err == nil {
		t.Error("a name with a NUL byte was accepted")
	}
}

// TestExecUnblocked: the trampoline's failure path gives the shell's codes.
func TestExecUnblocked(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for prog, want := range map[string]int{"/nonexistent/prog": 127, notExec: 126} {
		got := make(chan int)
		// Its own goroutine: ExecUnblocked locks and clears the mask of the
		// thread it runs on, which ends with the goroutine.
		go func() { got <- ExecUnblocked(prog, []string{prog}) }()
		if code := receive(t, got, "trampoline result"); code != want {
			t.Errorf("ExecUnblocked(%q) = %d, want %d", prog, code, want)
		}
	}
}
