package integration

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// An image with STOPSIGNAL SIGQUIT (nginx) gets SIGQUIT on pod deletion
// from containerd and CRI-O: with --termination-signal QUIT, --outlive-main
// holds that signal until the done file, then stops CMD. Without the flag
// SIGQUIT is forwarded at once, as before.
func TestSidecarTerminationSignalHeld(t *testing.T) {
	t.Parallel()
	for _, withFlag := range []bool{true, false} {
		dir := tempDir(t)
		done, out := inDir(dir, "done"), inDir(dir, "signals")
		args := []string{"sidecar", "--outlive-main", "1h", "--done-file", done}
		if withFlag {
			args = append(args, "--termination-signal", "QUIT")
		}
		p := startTandem(t, procOptions{}, cmdArgs(args, helper("record-signals", out, "15"))...)
		waitReadyPID(t, out)
		p.signal(syscall.SIGQUIT)
		if !withFlag {
			waitLines(t, out, 2) // forwarded: CMD has it
			if p.hasEvent(scHeldMessage) {
				t.Fatal("SIGQUIT held without --termination-signal QUIT")
			}
			scWriteFile(t, done, "")
			p.scWantExit(0, "stopped")
			continue
		}
		if held := p.waitEvent(scHeldMessage); held.Field("signal") != "SIGQUIT" {
			t.Fatalf("held %v, want SIGQUIT", held)
		}
		scWriteFile(t, done, "")
		p.scWantExit(0, "stopped")
		if got := readLines(out); !slices.Equal(got[1:], []string{"15"}) {
			t.Fatalf("CMD received %q, want only the stop signal (SIGTERM): the held SIGQUIT never reached it", got[1:])
		}
	}
}

// While a requested stop is under way, the container's termination signal
// is the same request: logged, not forwarded (pgbouncer's fast exit on
// SIGTERM during its safe SIGINT shutdown). Other signals still pass.
func TestSidecarTerminationSignalDuringRequestedStop(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, out := inDir(dir, "done"), inDir(dir, "signals")
	// record-signals exits on SIGHUP (1): the stop's INT is recorded, then
	// the test's TERM (which must not arrive) and HUP (which must).
	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--stop-signal", "INT", "--done-file", done},
		helper("record-signals", out, "1"))...)
	waitReadyPID(t, out)
	scWriteFile(t, done, "")
	p.waitEvent("stop-sent")
	waitLines(t, out, 2) // CMD got the INT
	p.signal(syscall.SIGTERM)
	p.waitEvent("signal-absorbed")
	p.signal(syscall.SIGHUP)
	p.scWantExit(0, "stopped")
	if got := readLines(out); !slices.Equal(got[1:], []string{"2", "1"}) {
		t.Fatalf("CMD received %q, want SIGINT then SIGHUP and never the pod's SIGTERM", got[1:])
	}
}

// --stop-delay: the stop signal waits D after the done file, so a shipper
// drains; a second done source during the delay does not shorten it.
func TestSidecarStopDelay(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, out := inDir(dir, "done"), inDir(dir, "signals")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--stop-delay", "300ms", "--done-file", done},
		helper("record-signals", out, "15"))...)
	waitReadyPID(t, out)
	scWriteFile(t, done, "")
	delayed := p.waitEvent("stop-delayed")
	p.signal(syscall.SIGUSR2) // the done signal too: no shortcut
	p.signal(syscall.SIGTERM) // nor the pod's termination signal
	sent := p.waitEvent("stop-sent")
	p.scWantExit(0, "stopped")
	if got := readLines(out); !slices.Equal(got[1:], []string{"15"}) {
		t.Fatalf("CMD received %q, want one SIGTERM: the stop's", got[1:])
	}
	t.Logf("stop signal sent %s after the delay began (stop-delay 300ms)", logGap(delayed, sent))
}

// logGap is the time between two of tandem's log lines, by their stamps.
func logGap(from, to kit.Line) time.Duration {
	if from.At.IsZero() || to.At.IsZero() {
		return -1
	}
	return to.At.Sub(from.At)
}
