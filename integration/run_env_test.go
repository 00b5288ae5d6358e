package integration

import (
	"encoding/json"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// TestRunEnvVars: every flag has a TANDEM_<FLAG> variable, and repeatable
// flags take a comma-separated list, so a manifest can configure tandem
// with env: alone.
func TestRunEnvVars(t *testing.T) {
	t.Run("TANDEM_STOP_SIGNAL", func(t *testing.T) {
		// The stop signal is what leftovers get when CMD exits.
		leftover := inDir(tempDir(t), "leftover")
		p, endCMD := startLeaving(t, procOptions{env: []string{"TANDEM_STOP_SIGNAL=USR1"}}, false, nil,
			"run-on-signal", "USR1", leftover)
		waitLines(t, leftover, 1)
		endCMD()
		if got := readLines(leftover); len(got) != 2 || got[1] != "handled SIGUSR1" {
			t.Errorf("leftover recorded %q, want its SIGUSR1 handler to run", got)
		}
		if stop := p.waitEvent("leftovers"); stop.Field("signal") != "SIGUSR1" {
			t.Errorf("leftovers were stopped with %q, want SIGUSR1", stop.Field("signal"))
		}
	})

	t.Run("TANDEM_GRACE", func(t *testing.T) {
		stubborn := inDir(tempDir(t), "stubborn")
		p, endCMD := startLeaving(t, procOptions{env: []string{"TANDEM_GRACE=150ms"}}, false, nil, "ignore-term", stubborn)
		waitLines(t, stubborn, 1)
		endCMD()
		if kill := p.waitEvent("leftovers-killed"); kill.Num("grace_ms") != 150 {
			t.Errorf("grace was %v ms, want 150 from TANDEM_GRACE", kill.Fields["grace_ms"])
		}
	})

	t.Run("TANDEM_REWRITE and TANDEM_CHILD_ONLY", func(t *testing.T) {
		out := inDir(tempDir(t), "signals")
		p := startTandem(t, procOptions{prefix: runDefaultSignals(), env: []string{"TANDEM_REWRITE=TERM:QUIT,INT:USR2", "TANDEM_CHILD_ONLY=true"}},
			cmdArgs([]string{"run"}, helper("record-signals", out, "3"))...)
		runKillGroupOnFailure(t, p, false)
		waitLines(t, out, 1)
		p.signal(syscall.SIGINT)
		waitLines(t, out, 2)
		p.signal(syscall.SIGTERM)
		if code := p.wait(); code != 0 {
			t.Fatalf("tandem exited %d, want 0", code)
		}
		if got, want := readLines(out)[1:], []string{"12", "3"}; !slices.Equal(got, want) {
			t.Errorf("sent INT, TERM: CMD recorded %q, want %q", got, want)
		}
		if fwd := p.waitEvent("signal-forwarded"); fwd.Fields["group"] != false {
			t.Errorf("TANDEM_CHILD_ONLY=true: forwarded with group=%v", fwd.Fields["group"])
		}
	})

	t.Run("TANDEM_SUCCESS_CODE", func(t *testing.T) {
		for exit, want := range map[int]int{3: 0, 4: 0, 5: 5} {
			p := startTandem(t, procOptions{env: []string{"TANDEM_SUCCESS_CODE=3,4"}},
				cmdArgs([]string{"run"}, helper("exit", strconv.Itoa(exit)))...)
			if code := p.wait(); code != want {
				t.Errorf("TANDEM_SUCCESS_CODE=3,4, CMD exited %d: tandem exited %d, want %d", exit, code, want)
			}
		}
	})

	t.Run("TANDEM_TERMINATION_LOG", func(t *testing.T) {
		path := inDir(tempDir(t), "termination-log")
		p := startTandem(t, procOptions{env: []string{"TANDEM_TERMINATION_LOG=" + path}},
			cmdArgs([]string{"run"}, helper("exit", "9"))...)
		if code := p.wait(); code != 9 {
			t.Fatalf("tandem exited %d, want 9", code)
		}
		var rec struct{ ExitCode int }
		if err := json.Unmarshal([]byte(waitFile(t, path)), &rec); err != nil || rec.ExitCode != 9 {
			t.Errorf("termination log: %+v, %v; want exitCode 9", rec, err)
		}
	})
}
