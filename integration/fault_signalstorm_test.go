package integration

import (
	"slices"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// stormKinds are the signals of the storm: standard ones (the kernel keeps
// at most one of each pending) and realtime ones (queued, one per send).
// SIGUSR2 and SIGTERM are kept out: they mark the end.
var stormKinds = func() []syscall.Signal {
	kinds := []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGUSR1, syscall.SIGALRM,
		syscall.SIGWINCH, syscall.SIGPIPE, syscall.SIGCONT, syscall.SIGQUIT}
	// 34 is left out: the Go runtime cannot catch it (see signals.Forwardable).
	for rt := syscall.Signal(35); rt <= 64; rt += 3 {
		kinds = append(kinds, rt)
	}
	return kinds
}()

const stormSize = 5000

// A storm of thousands of signals of mixed kinds hits tandem at once. The
// last one (SIGUSR2, not part of the storm) still reaches CMD, tandem stays
// responsive (a later SIGTERM is forwarded and tandem exits with CMD's code),
// and every kind of the storm reached CMD at least once (the kernel and the
// Go runtime may merge repeats of one kind, never drop a kind).
func TestFaultSignalStorm(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"run", "sidecar"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			signals := inDir(dir, "signals")
			args := []string{mode, "--grace", "30s"}
			if mode == "sidecar" {
				// USR2 is the sidecar's default done signal; move it away so the
				// storm's last signal is forwarded like the rest.
				args = append(args, "--done-signal", "SIG41")
			}
			p := startTandem(t, procOptions{}, cmdArgs(args, helper("record-signals", signals, "15", "7"))...)
			killCMDOnCleanup(t, signals)
			p.waitEvent("cmd-started")

			pid := p.cmd.Process.Pid
			for i := range stormSize {
				sig := stormKinds[i%len(stormKinds)]
				if mode == "sidecar" && sig == 41 {
					continue
				}
				if err := unix.Kill(pid, sig); err != nil {
					t.Fatalf("signal %d of the storm: %v", i, err)
				}
			}
			mustDo(t, unix.Kill(pid, syscall.SIGUSR2))
			waitRecorded(t, signals, syscall.SIGUSR2)

			// Still responsive: SIGTERM is forwarded, CMD exits 7, so does tandem.
			p.signal(syscall.SIGTERM)
			if code := p.wait(); code != 7 {
				t.Fatalf("tandem exited %d after the storm, want CMD's 7", code)
			}
			recorded := readLines(signals)[1:]
			if recorded[len(recorded)-1] != "15" {
				t.Errorf("CMD's last signal was %s, want SIGTERM (15)", recorded[len(recorded)-1])
			}
			for _, kind := range stormKinds {
				if mode == "sidecar" && kind == 41 {
					continue
				}
				if !slices.Contains(recorded, strconv.Itoa(int(kind))) {
					t.Errorf("CMD never received signal %d of the storm", kind)
				}
			}
			t.Logf("%s: %d signals sent, %d reached CMD", mode, stormSize+2, len(recorded))
		})
	}
}

// waitRecorded waits until record-signals has written sig to path.
func waitRecorded(t *testing.T, path string, sig syscall.Signal) {
	t.Helper()
	want := strconv.Itoa(int(sig))
	for n := 2; ; n++ {
		lines := waitLines(t, path, n)
		if slices.Contains(lines[1:], want) {
			return
		}
		n = len(lines)
	}
}
