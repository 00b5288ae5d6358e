package integration

import (
	"testing"
)

// TestRunLeftoversGetStopSignal: when CMD exits, what is left of its process
// group gets the stop signal and tandem waits for it, so a leftover's
// handler runs to the end. As PID 1 this is what dumb-init gets wrong: PID 1
// exiting makes the kernel SIGKILL every process of the namespace at once.
func TestRunLeftoversGetStopSignal(t *testing.T) {
	for _, mode := range runModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := tempDir(t)
			handler := inDir(dir, "handler")
			// A long grace: tandem must go on as soon as the group is empty,
			// and the handler must never race the SIGKILL.
			p, endCMD := startLeaving(t, procOptions{}, mode.pid1, []string{"--grace", "1m"}, "run-on-signal", "TERM", handler)
			waitLines(t, handler, 1)
			endCMD() // CMD exits 0, leaving the handler
			if got := readLines(handler); len(got) != 2 || got[1] != "handled SIGTERM" {
				t.Fatalf("leftover recorded %q: its SIGTERM handler did not run before tandem exited", got)
			}
			if stop := p.waitEvent("leftovers"); stop.Field("signal") != "SIGTERM" {
				t.Errorf("leftovers were stopped with %q, want SIGTERM", stop.Field("signal"))
			}
			if p.hasEvent("leftovers-killed") {
				t.Error("tandem sent SIGKILL although the leftover stopped on SIGTERM")
			}
		})
	}
}

// TestRunLeftoversKilledAfterGrace: a leftover that ignores the stop signal
// is SIGKILLed once --grace has passed, and is gone before tandem exits.
func TestRunLeftoversKilledAfterGrace(t *testing.T) {
	for _, mode := range runModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := tempDir(t)
			stubborn := inDir(dir, "stubborn")
			p, endCMD := startLeaving(t, procOptions{}, mode.pid1, []string{"--grace", "100ms"}, "ignore-term", stubborn)
			var leftover []pidfd
			if mode.pid1 {
				waitLines(t, stubborn, 1)
			} else {
				// Its pid is ours to see only outside a PID namespace.
				leftover = openPidfds(t, []int{waitReadyPID(t, stubborn)})
			}
			endCMD()
			p.waitEvent("leftovers")
			if kill := p.waitEvent("leftovers-killed"); kill.Num("grace_ms") != 100 {
				t.Errorf("SIGKILL after a grace of %v ms, want --grace 100ms", kill.Fields["grace"])
			}
			// Outside a namespace nothing else would kill it: had tandem
			// exited without the SIGKILL, it would still be running.
			if len(leftover) > 0 && !leftover[0].exited(0) {
				t.Fatal("the leftover that ignores SIGTERM outlived tandem")
			}
		})
	}
}
