package integration

import (
	"slices"
	"testing"
)

// Containers start in parallel, so a short main can end before its sidecar
// exists; tandem main keeps looking every 100ms until --peer-timeout.
//
// The order is made certain with SIGSTOP: the main tandem, already past its
// CMD, is frozen while the sidecar starts and gets its CMD running, then
// thawed, so its next scan is the one that finds the sidecar. Without the
// freeze a scan could find the sidecar in the first millisecond after its
// exec, before it listens for the done signal (peers_race_test.go).
func TestPeersMainEndsBeforeSidecarStarts(t *testing.T) {
	t.Parallel()

	t.Run("no sidecar yet", func(t *testing.T) {
		t.Parallel()
		p := startPod(t)
		mainArgv := append([]string{tandemBin, "main", "--signal-peers", "--peer-timeout", "60s", "--"}, helper("exit", "0")...)
		p.start("main", mainArgv...)
		// CMD exited is logged before the main announces; the sidecar does
		// not exist yet. (Whether its first scan ran before the freeze is not
		// observable; the next subtest proves the retry itself.)
		p.tandemLine("main", "", "cmd-exited")
		p.do(podCommand{Op: "stop", ID: "main"})

		out := inDir(tempDir(t), "signals")
		sidecarPID := p.start("sidecar", sidecarArgv(nil, helper("record-signals", out, "15")...)...)
		waitReadyPID(t, out)
		p.do(podCommand{Op: "cont", ID: "main"})

		p.wantExit("main", 0)
		if got := p.signaledPeers("main", ""); !slices.Equal(got, []int{sidecarPID}) {
			t.Fatalf("main signaled %v, want the sidecar started after it ended [%d]", got, sidecarPID)
		}
		p.wantExit("sidecar", 0)
		if got := readLines(out)[1:]; !slices.Equal(got, []string{"15"}) {
			t.Fatalf("sidecar's CMD received %q, want only SIGTERM", got)
		}
	})

	// With names the retry is certain: the main logs the first sidecar
	// signaled, so it has scanned, and is still looking for the second one,
	// which does not exist yet.
	t.Run("second named sidecar later", func(t *testing.T) {
		t.Parallel()
		p := startPod(t)
		dir := tempDir(t)
		outA, outB := inDir(dir, "a"), inDir(dir, "b")
		pidA := p.start("a", sidecarArgv([]string{"--name", "a"}, helper("record-signals", outA, "15")...)...)
		waitReadyPID(t, outA)

		mainArgv := append([]string{tandemBin, "main", "--peer", "a", "--peer", "b", "--peer-timeout", "60s", "--"}, helper("exit", "0")...)
		p.start("main", mainArgv...)
		if got := p.tandemLine("main", "", "peer-signaled"); got.Field("peer") != "a" || got.Num("peer_pid") != pidA {
			t.Fatalf("first peer signaled: %v, want a (pid %d)", got, pidA)
		}
		p.do(podCommand{Op: "stop", ID: "main"})
		pidB := p.start("b", sidecarArgv([]string{"--name", "b"}, helper("record-signals", outB, "15")...)...)
		waitReadyPID(t, outB)
		p.do(podCommand{Op: "cont", ID: "main"})

		p.wantExit("main", 0)
		if got := p.signaledPeers("main", ""); !slices.Equal(got, []int{pidA, pidB}) {
			t.Fatalf("main signaled %v, want a then b, once each: [%d %d]", got, pidA, pidB)
		}
		for _, id := range []string{"a", "b"} {
			p.wantExit(id, 0)
		}
		if warned := p.tandemLines("main", "", "peers-failed"); len(warned) > 0 {
			t.Fatalf("main warned %v", warned)
		}
	})
}
