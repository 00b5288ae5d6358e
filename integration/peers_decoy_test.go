package integration

import (
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// --signal-peers finds peers by their command line alone (argv[0] named
// tandem, argv[1] sidecar), never by a process name or words somewhere in
// it: processes that merely look like a sidecar are left alone.
func TestPeersDecoysUntouched(t *testing.T) {
	t.Parallel()
	p := startPod(t)
	dir := tempDir(t)

	// /bin/sh runs the script named by argv[1] from dir, whatever argv[0]
	// says, and stays alive in `wait` with default dispositions: a done
	// signal would kill it (exit 140), so its end tells whether it got one.
	for _, script := range []string{"sidecarx", "sidecar", "tandem"} {
		if err := os.WriteFile(inDir(dir, script), []byte("sleep 300 & wait\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	decoys := []struct {
		id   string
		path string
		argv []string
	}{
		{"near-miss argv[1]", "/bin/sh", []string{"tandem", "sidecarx"}},
		{"binary named tandem-sidecar", "/bin/sh", []string{"/usr/bin/tandem-sidecar", "sidecar"}},
		{"words reversed", "/bin/sh", []string{"sidecar", "tandem"}},
		{"interpreter first", "/bin/sh", []string{"python", "tandem", "sidecar", "--name", "proxy"}},
		{"exec -a tandem sleep", "/bin/sleep", []string{"tandem", "300"}},
		{"CMD containing the words", "/bin/sh", []string{"sh", "-c", "sleep 300 & wait; : tandem sidecar --name proxy"}},
	}
	for _, d := range decoys {
		p.startAs(podCommand{ID: d.id, Path: d.path, Argv: d.argv, Dir: dir})
	}
	// A real tandem that is not a sidecar: it would forward the signal.
	outRun := inDir(dir, "run-signals")
	p.start("tandem run", append([]string{tandemBin, "run", "--"}, helper("record-signals", outRun, "15")...)...)
	waitReadyPID(t, outRun)

	outSidecar := inDir(dir, "sidecar-signals")
	sidecarPID := p.start("sidecar", sidecarArgv(nil, helper("record-signals", outSidecar, "15")...)...)
	waitReadyPID(t, outSidecar)

	p.start("done", tandemBin, "done", "--signal-peers")
	p.wantExit("done", 0)
	if got := p.signaledPeers("done", ""); !slices.Equal(got, []int{sidecarPID}) {
		t.Fatalf("done signaled %v, want only the sidecar [%d]", got, sidecarPID)
	}
	p.wantExit("sidecar", 0)

	// Every decoy is still alive: it dies of our SIGKILL (137), not of a
	// done signal sent earlier (the first fatal signal decides the status).
	for _, d := range decoys {
		p.do(podCommand{Op: "signal", ID: d.id, Sig: int(syscall.SIGKILL)})
		if code := p.exitCode(d.id); code != 128+int(syscall.SIGKILL) {
			t.Errorf("decoy %q (argv %q) exited %d, want %d: it got a signal that was not ours",
				d.id, d.argv, code, 128+int(syscall.SIGKILL))
		}
	}
	p.do(podCommand{Op: "signal", ID: "tandem run", Sig: int(syscall.SIGTERM)})
	p.wantExit("tandem run", 0)
	if got := strings.Join(readLines(outRun)[1:], ","); got != "15" {
		t.Fatalf("tandem run's CMD received %q, want only the SIGTERM we sent (15)", got)
	}
}
