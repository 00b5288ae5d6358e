package integration

import (
	"strconv"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/internal/signals"
)

// --termination-grace holds for every signal a runtime stops a container
// with: SIGTERM, and the stock images' STOPSIGNALs (nginx's SIGQUIT,
// postgres's SIGINT). A CMD that ignores it gets it first, then SIGKILL
// once the grace has passed, and the done file says so; the sidecars do
// not wait for the pod's whole grace period.
func TestMainTerminationGraceEveryStopSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT} {
		t.Run(signals.Name(sig), func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			done, cmdSignals := inDir(dir, "done"), inDir(dir, "signals")
			// SIGINT with its default action, whatever this run inherited.
			p := startTandem(t, procOptions{prefix: runDefaultSignals()}, cmdArgs(
				[]string{"main", "--done-file", done, "--termination-grace", "200ms"},
				helper("record-signals", cmdSignals))...)
			killCMDOnCleanup(t, cmdSignals)
			p.signal(sig)
			p.scWantExit(137, "signaled")
			if grace := p.waitEvent("termination-grace"); grace.Field("signal") != signals.Name(sig) {
				t.Errorf("termination-grace line %v; want signal %s", grace, signals.Name(sig))
			}
			p.scWantOrder("termination-grace", "kill-sent", "cmd-exited", "done-written")
			scWantStatus(t, done, "done", 137, "SIGKILL", "signaled")
			if got := readLines(cmdSignals)[1:]; len(got) != 1 || got[0] != strconv.Itoa(int(sig)) {
				t.Errorf("CMD received %q; want the signal itself first, %d", got, sig)
			}
		})
	}
}
