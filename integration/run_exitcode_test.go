package integration

import (
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

// TestRunExitCodes: tandem exits with CMD's own code, for every code a
// process can exit with, and logs it.
func TestRunExitCodes(t *testing.T) {
	for code := 0; code <= 255; code++ {
		p := startTandem(t, procOptions{}, cmdArgs([]string{"run"}, helper("exit", strconv.Itoa(code)))...)
		if got := p.wait(); got != code {
			t.Fatalf("CMD exited %d: tandem exited %d", code, got)
		}
		if got := p.waitEvent("cmd-exited").Num("exit_code"); got != code {
			t.Errorf("CMD exited %d: \"CMD exited\" logged exit_code %d", code, got)
		}
		if got := p.waitEvent("exiting").Num("exit_code"); got != code {
			t.Errorf("CMD exited %d: \"tandem exiting\" logged exit_code %d", code, got)
		}
	}
}

// TestRunSignalDeaths: CMD killed by signal N makes tandem exit 128+N, the
// shell's convention that Kubernetes records too.
func TestRunSignalDeaths(t *testing.T) {
	for _, sig := range []unix.Signal{unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGABRT, unix.SIGKILL,
		unix.SIGUSR1, unix.SIGSEGV, unix.SIGPIPE, unix.SIGTERM, 36, 64} {
		t.Run(signals.Name(sig), func(t *testing.T) {
			p := startTandem(t, procOptions{}, cmdArgs([]string{"run"}, helper("die-of", strconv.Itoa(int(sig))))...)
			if got, want := p.wait(), 128+int(sig); got != want {
				t.Fatalf("CMD died of %s: tandem exited %d, want %d", signals.Name(sig), got, want)
			}
			exited := p.waitEvent("cmd-exited")
			if exited.Field("signal") != signals.Name(sig) || exited.Num("exit_code") != 128+int(sig) {
				t.Errorf("\"CMD exited\" logged signal %q, exit_code %d; want %s, %d",
					exited.Field("signal"), exited.Num("exit_code"), signals.Name(sig), 128+int(sig))
			}
		})
	}
}
