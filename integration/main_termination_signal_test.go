package integration

import (
	"strconv"
	"syscall"
	"testing"
)

// --termination-signal names the one signal the runtime stops the main's
// container with: another of the stock images' STOPSIGNALs (a SIGQUIT sent
// for a JVM's thread dump) is forwarded and starts no --termination-grace,
// writes no termination mark; the named signal does both.
func TestMainTerminationSignalNamed(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, cmdSignals := inDir(dir, "done"), inDir(dir, "signals")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"main", "--done-file", done, "--termination-grace", "200ms", "--termination-signal", "TERM"},
		helper("record-signals", cmdSignals))...)
	killCMDOnCleanup(t, cmdSignals)
	p.signal(syscall.SIGQUIT)
	// CMD got the dump request and runs on.
	if got := waitLines(t, cmdSignals, 2)[1]; got != strconv.Itoa(int(syscall.SIGQUIT)) {
		t.Fatalf("CMD received %q first; want SIGQUIT (%d)", got, syscall.SIGQUIT)
	}
	p.signal(syscall.SIGTERM)
	p.scWantExit(137, "signaled")
	// Each is written once, for the first signal that stops the container:
	// the SIGQUIT before it would have taken both.
	if grace := p.scLinesWith("termination-grace"); len(grace) != 1 || grace[0].Field("signal") != "SIGTERM" {
		t.Errorf("termination-grace lines %v; want one, for SIGTERM", grace)
	}
	if mark := scReadStatus(t, done+".terminating"); mark.Signal != "SIGTERM" {
		t.Errorf("termination mark %+v; want it written for SIGTERM", mark)
	}
	scWantStatus(t, done, "done", 137, "SIGKILL", "signaled")
}
