package integration

import (
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// run-group CMD-OUT CHILD-OUT: start a child in this process group that
// records its signals to CHILD-OUT, then record our own to CMD-OUT. Both
// exit 0 on SIGTERM.
func helperRunGroup(args []string) int {
	term := strconv.Itoa(int(syscall.SIGTERM))
	child := startHelperChild("record-signals", args[1], term)
	if child == nil {
		return 94
	}
	return helperRecordSignals([]string{args[0], term})
}

// TestRunForwardsToGroup: by default a forwarded signal reaches CMD's whole
// process group (a shell's children too), as tini -g and dumb-init do.
func TestRunForwardsToGroup(t *testing.T) {
	dir := tempDir(t)
	cmdOut, childOut := inDir(dir, "cmd"), inDir(dir, "child")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"run"}, helper("run-group", cmdOut, childOut))...)
	runKillGroupOnFailure(t, p, false)
	waitLines(t, cmdOut, 1)
	waitLines(t, childOut, 1)
	p.signal(syscall.SIGUSR1)
	if got := waitLines(t, cmdOut, 2)[1]; got != "10" {
		t.Fatalf("CMD recorded %q, want 10 (SIGUSR1)", got)
	}
	if got := waitLines(t, childOut, 2)[1]; got != "10" {
		t.Fatalf("CMD's child recorded %q, want 10 (SIGUSR1)", got)
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want 0", code)
	}
	for _, out := range []string{cmdOut, childOut} {
		if got, want := readLines(out)[1:], []string{"10", "15"}; !slices.Equal(got, want) {
			t.Errorf("%s recorded %q, want exactly %q", out, got, want)
		}
	}
}

// TestRunChildOnly: with --child-only, a forwarded signal reaches CMD alone;
// a process CMD started in its group does not get it.
func TestRunChildOnly(t *testing.T) {
	dir := tempDir(t)
	cmdOut, childOut := inDir(dir, "cmd"), inDir(dir, "child")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"run", "--child-only"}, helper("run-group", cmdOut, childOut))...)
	runKillGroupOnFailure(t, p, false)
	waitLines(t, cmdOut, 1)
	childPID := waitReadyPID(t, childOut)
	p.signal(syscall.SIGUSR1)
	if got := waitLines(t, cmdOut, 2)[1]; got != "10" {
		t.Fatalf("CMD recorded %q, want 10 (SIGUSR1)", got)
	}
	// tandem's kill has returned by now: had it hit the group, SIGUSR1 would
	// be pending in the child ahead of this SIGUSR2, and signals are taken
	// lowest number first.
	if err := syscall.Kill(childPID, syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	if got := waitLines(t, childOut, 2)[1]; got != "12" {
		t.Fatalf("CMD's child recorded %q before our SIGUSR2: --child-only leaked to the group", got)
	}
	// SIGTERM ends CMD alone; the child then goes as a leftover.
	p.signal(syscall.SIGTERM)
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want 0", code)
	}
	if got, want := readLines(cmdOut)[1:], []string{"10", "15"}; !slices.Equal(got, want) {
		t.Errorf("CMD recorded %q, want exactly %q", got, want)
	}
	// A leftover gets SIGCONT right after the stop signal (so a stopped one
	// can act on it); whether the child records it before it exits on
	// SIGTERM is a race of its own runtime, so it is left out.
	got := slices.DeleteFunc(readLines(childOut)[1:], func(l string) bool { return l == "18" })
	if want := []string{"12", "15"}; !slices.Equal(got, want) {
		t.Errorf("CMD's child recorded %q, want exactly %q (SIGUSR2 from the test, SIGTERM as a leftover)", got, want)
	}
}
