package integration

import (
	"slices"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

// TestRunForwardsEverySignal: each forwardable signal sent to tandem reaches
// CMD exactly once, both as PID 1 and as a plain process. Signals go one at
// a time, each sent only after the previous one arrived; realtime signals
// queue, so a second delivery of one would show up as a second line.
func TestRunForwardsEverySignal(t *testing.T) {
	for _, mode := range runModes {
		t.Run(mode.name, func(t *testing.T) {
			out := inDir(tempDir(t), "signals")
			// CMD exits 0 on SIGUSR2, the last signal sent below.
			p := startTandem(t, runOpts(t, mode.pid1, procOptions{prefix: runDefaultSignals()}),
				cmdArgs([]string{"run"}, helper("record-signals", out, strconv.Itoa(int(unix.SIGUSR2))))...)
			runKillGroupOnFailure(t, p, mode.pid1)
			waitLines(t, out, 1)
			var want []string
			for _, sig := range signals.AllForwardable() {
				if sig == unix.SIGUSR2 {
					continue
				}
				p.signal(syscall.Signal(sig))
				want = append(want, strconv.Itoa(int(sig)))
				lines := waitLines(t, out, 1+len(want))
				if got := lines[len(lines)-1]; got != want[len(want)-1] {
					t.Fatalf("sent %s to tandem; CMD recorded %s (all: %q)", signals.Name(sig), got, lines[1:])
				}
			}
			p.signal(syscall.SIGUSR2)
			want = append(want, strconv.Itoa(int(unix.SIGUSR2)))
			if code := p.wait(); code != 0 {
				t.Fatalf("tandem exited %d, want 0 (CMD exits 0 on SIGUSR2)", code)
			}
			// CMD has exited: its record is complete.
			if got := readLines(out)[1:]; !slices.Equal(got, want) {
				t.Fatalf("CMD recorded %q\nwant exactly %q", got, want)
			}
		})
	}
}

// TestRunForwardedSignalKills: a forwarded SIGTERM kills a CMD that keeps
// the default action, and tandem reports 143.
func TestRunForwardedSignalKills(t *testing.T) {
	p := startTandem(t, procOptions{}, cmdArgs([]string{"run"}, helper("sleep"))...)
	runKillGroupOnFailure(t, p, false)
	p.childPID()
	p.signal(syscall.SIGTERM)
	if code := p.wait(); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("tandem exited %d, want 143", code)
	}
	if sig := p.waitEvent("cmd-exited").Field("signal"); sig != "SIGTERM" {
		t.Fatalf("\"CMD exited\" logged signal %q, want SIGTERM", sig)
	}
}
