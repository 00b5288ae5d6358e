package integration

import (
	"slices"
	"syscall"
	"testing"
)

// TestRunParentDeath: when tandem is not PID 1 and is killed outright, CMD
// is not left unsupervised: the parent-death signal delivers the stop
// signal to it.
func TestRunParentDeath(t *testing.T) {
	for _, tt := range []struct {
		flags []string
		want  string
	}{
		{nil, "15"},
		{[]string{"--stop-signal", "USR1"}, "10"},
	} {
		t.Run("stop signal "+tt.want, func(t *testing.T) {
			out := inDir(tempDir(t), "signals")
			// CMD exits on the signal it expects.
			p := startTandem(t, procOptions{}, cmdArgs(append([]string{"run"}, tt.flags...), helper("record-signals", out, tt.want))...)
			runKillGroupOnFailure(t, p, false)
			waitLines(t, out, 1)
			p.signal(syscall.SIGKILL)
			if got := waitLines(t, out, 2)[1:]; !slices.Equal(got, []string{tt.want}) {
				t.Fatalf("after tandem was killed CMD recorded %q, want %s", got, tt.want)
			}
			if code := p.wait(); code != 137 {
				t.Fatalf("tandem exited %d, want 137 (SIGKILL)", code)
			}
		})
	}
}
