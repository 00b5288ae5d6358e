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
			stdin, release := runStdinPipe(t)
			// A long grace: tandem must go on as soon as the group is empty,
			// and the handler must never race the SIGKILL.
			p := startTandem(t, runOpts(t, mode.pid1, procOptions{stdin: stdin}),
				cmdArgs([]string{"run", "--grace", "1m"}, helper("run-leave", "run-on-signal", "TERM", handler))...)
			runKillGroupOnFailure(t, p, mode.pid1)
			stdin.Close()
			waitLines(t, handler, 1)
			release.Close() // CMD exits 0, leaving the handler
			if code := p.wait(); code != 0 {
				t.Fatalf("tandem exited %d, want CMD's 0", code)
			}
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
			stdin, release := runStdinPipe(t)
			p := startTandem(t, runOpts(t, mode.pid1, procOptions{stdin: stdin}),
				cmdArgs([]string{"run", "--grace", "100ms"}, helper("run-leave", "ignore-term", stubborn))...)
			runKillGroupOnFailure(t, p, mode.pid1)
			stdin.Close()
			var leftover []pidfd
			if mode.pid1 {
				waitLines(t, stubborn, 1)
			} else {
				// Its pid is ours to see only outside a PID namespace.
				leftover = openPidfds(t, []int{waitReadyPID(t, stubborn)})
			}
			release.Close()
			if code := p.wait(); code != 0 {
				t.Fatalf("tandem exited %d, want CMD's 0", code)
			}
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
