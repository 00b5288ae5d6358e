package integration

import (
	"os"
	"syscall"
	"testing"
)

// A pod's deletion signals the main and the sidecar together, in an order
// nobody chooses. Played by a real `tandem main` whose CMD drains (it
// records SIGTERM and exits on SIGUSR1) and a sidecar under --outlive-main:
// whichever of the two is signalled first, the sidecar holds its signal,
// its CMD receives nothing until the main is done, and then stops as
// requested (exit 0).
func TestTerminationMarkEitherOrder(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"main first", "sidecar first"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t)
			mainSignals := inDir(rec.dir, "main-signals")
			main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", rec.done},
				helper("record-signals", mainSignals, "10"))...)
			waitReadyPID(t, mainSignals)
			sidecar := rec.start("sidecar", "--outlive-main", "1h", "--poll-interval", "1h", "--done-file", rec.done)
			sidecar.waitEvent("main-attached")
			if order == "main first" {
				main.signal(syscall.SIGTERM)
				waitFile(t, rec.done+".terminating")
				sidecar.signal(syscall.SIGTERM)
			} else {
				sidecar.signal(syscall.SIGTERM)
				sidecar.waitEvent("termination-mark-awaited")
				main.signal(syscall.SIGTERM)
			}
			sidecar.waitEvent(scHeldMessage)
			rec.wantReceived("nothing while the main drains")
			waitLines(t, mainSignals, 2) // the main's CMD has its SIGTERM

			main.signal(syscall.SIGUSR1) // the drain is over
			main.scWantExit(0, "exited")
			sidecar.scWantExit(0, "stopped")
			sidecar.scWantOrder(scHeldMessage, "done-seen", "stop-sent", "cmd-exited")
			if sidecar.hasEvent("signal-alone") {
				t.Error("the pod's deletion was taken for a signal to the sidecar alone")
			}
			rec.wantReceived("the one SIGTERM of the requested stop", "15")
		})
	}
}

// A liveness restart: the kubelet signals the sidecar's container alone,
// the main runs on unmarked. The signal reaches CMD after the short look
// for a mark, not after --outlive-main's hour, and the sidecar ends with
// CMD's code for the kubelet to restart it; the main is untouched.
func TestTerminationMarkSidecarAlone(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	mainSignals := inDir(rec.dir, "main-signals")
	main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", rec.done},
		helper("record-signals", mainSignals, "10"))...)
	waitReadyPID(t, mainSignals)
	sidecar := rec.start("sidecar", "--outlive-main", "1h", "--restart", "always", "--poll-interval", "1h", "--done-file", rec.done)
	sidecar.waitEvent("main-attached")
	sidecar.signal(syscall.SIGTERM)
	sidecar.scWantExit(0, "exited") // record-signals exits 0 on SIGTERM
	sidecar.scWantOrder("termination-mark-awaited", "signal-alone", "cmd-exited")
	if sidecar.hasEvent(scHeldMessage) || sidecar.hasEvent("restarting") {
		t.Error("a signal to the sidecar alone was held, or CMD restarted after it")
	}
	rec.wantReceived("the signal, forwarded", "15")
	if got := readLines(mainSignals)[1:]; len(got) != 0 {
		t.Errorf("the main's CMD received %q; want nothing", got)
	}
	main.signal(syscall.SIGUSR1)
	main.scWantExit(0, "exited")
}

// A main that starts again (restartPolicy OnFailure, Always) removes the
// mark of its last run's termination, as it removes the done file: a
// sidecar must not hold its own signal for a termination long over.
func TestTerminationMarkRemovedAtStart(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	scWriteFile(t, done+".terminating", "")
	out := inDir(tempDir(t), "ran")
	main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("mark", out))...)
	main.scWantExit(0, "exited")
	waitFile(t, out)
	if _, err := os.Lstat(done + ".terminating"); !os.IsNotExist(err) {
		t.Errorf("the last run's termination mark is still there (%v)", err)
	}
}
