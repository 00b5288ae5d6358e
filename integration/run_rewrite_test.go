package integration

import (
	"slices"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// TestRunRewrite: --rewrite TERM:QUIT delivers SIGQUIT when SIGTERM arrives
// (nginx's graceful stop), the flag repeats, and signals not named pass
// unchanged.
func TestRunRewrite(t *testing.T) {
	out := inDir(tempDir(t), "signals")
	// CMD exits 0 on SIGQUIT.
	p := startTandem(t, procOptions{prefix: runDefaultSignals()}, cmdArgs([]string{"run", "--rewrite", "TERM:QUIT", "--rewrite", "SIGINT:usr2"},
		helper("record-signals", out, "3"))...)
	runKillGroupOnFailure(t, p, false)
	waitLines(t, out, 1)
	p.signal(syscall.SIGUSR1)
	waitLines(t, out, 2)
	p.signal(syscall.SIGINT)
	waitLines(t, out, 3)
	p.signal(syscall.SIGTERM)
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want 0 (CMD exits 0 on SIGQUIT)", code)
	}
	if got, want := readLines(out)[1:], []string{"10", "12", "3"}; !slices.Equal(got, want) {
		t.Fatalf("sent USR1, INT, TERM: CMD recorded %q, want %q (USR1, USR2, QUIT)", got, want)
	}
	forwarded := p.waitFor("TERM forwarded as QUIT", func(l kit.Line) bool {
		return l.Is("signal-forwarded") && l.Field("received") == "SIGTERM"
	})
	if forwarded.Field("sent") != "SIGQUIT" {
		t.Errorf("log says SIGTERM was sent as %q, want SIGQUIT", forwarded.Field("sent"))
	}
}

// TestRunRewriteDrop: --rewrite HUP:0 drops SIGHUP, as dumb-init's -r 1:0
// does: CMD never receives it, and signals after it still arrive.
func TestRunRewriteDrop(t *testing.T) {
	out := inDir(tempDir(t), "signals")
	// CMD exits 0 on SIGTERM.
	p := startTandem(t, procOptions{prefix: runDefaultSignals()}, cmdArgs([]string{"run", "--rewrite", "HUP:0"},
		helper("record-signals", out, "15"))...)
	runKillGroupOnFailure(t, p, false)
	waitLines(t, out, 1)
	p.signal(syscall.SIGHUP)
	dropped := p.waitEvent("signal-dropped")
	if dropped.Field("signal") != "SIGHUP" {
		t.Errorf("dropped %q, want SIGHUP", dropped.Field("signal"))
	}
	p.signal(syscall.SIGUSR1)
	waitLines(t, out, 2)
	p.signal(syscall.SIGTERM)
	if code := p.wait(); code != 0 {
		t.Fatalf("tandem exited %d, want 0 (CMD exits 0 on SIGTERM)", code)
	}
	if got, want := readLines(out)[1:], []string{"10", "15"}; !slices.Equal(got, want) {
		t.Fatalf("sent HUP, USR1, TERM: CMD recorded %q, want %q (HUP dropped)", got, want)
	}
}
