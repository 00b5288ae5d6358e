package integration

import (
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// In a shared PID namespace with no shared volume, the main's end reaches the
// sidecar as the done signal: from `tandem done --signal-peers` (a script's
// last line) or from `tandem main --signal-peers` however its CMD ended. The
// sidecar exits 0, its CMD gets the stop signal, and the done signal itself
// is never forwarded to CMD.
func TestPeersSignalStopsSidecar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// announce starts the main side in the pod, once the sidecar's CMD
		// runs, and returns the id and the mode of the tandem that signals.
		announce func(t *testing.T, p *pod) (id, mode string)
		// end finishes the main side, when it needs a push.
		end      func(t *testing.T, p *pod)
		wantCode int // of the main side: its own, unchanged by the peers
	}{
		{
			name: "done --signal-peers",
			announce: func(t *testing.T, p *pod) (string, string) {
				p.start("done", tandemBin, "done", "--signal-peers")
				return "done", "done"
			},
			wantCode: 0,
		},
		{
			name:     "main --signal-peers, CMD exits 0",
			announce: mainSignalingPeers(helper("exit", "0")...),
			wantCode: 0,
		},
		{
			name:     "main --signal-peers, CMD exits 3",
			announce: mainSignalingPeers(helper("exit", "3")...),
			wantCode: 3,
		},
		{
			name:     "main --signal-peers, CMD killed by SIGKILL",
			announce: mainSignalingPeers(helper("die-of", "9")...),
			wantCode: 128 + 9,
		},
		{
			// The main container is stopped from outside: tandem forwards
			// SIGTERM, CMD dies of it, and the sidecar is still told.
			name:     "main --signal-peers, SIGTERM to the main",
			announce: mainSignalingPeers(helper("sleep")...),
			end: func(t *testing.T, p *pod) {
				p.tandemLine("main", "", "cmd-started")
				p.do(podCommand{Op: "signal", ID: "main", Sig: int(syscall.SIGTERM)})
			},
			wantCode: 128 + 15,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startPod(t)
			out := inDir(tempDir(t), "signals")
			sidecarPID := p.start("sidecar", sidecarArgv(nil, helper("record-signals", out, "15")...)...)
			// CMD runs, so the sidecar tandem is past registering its
			// signals: the done signal cannot be lost (see peers_race_test.go).
			waitReadyPID(t, out)

			id, mode := tc.announce(t, p)
			if tc.end != nil {
				tc.end(t, p)
			}
			p.wantExit(id, tc.wantCode)
			if got := p.signaledPeers(mode, ""); !slices.Equal(got, []int{sidecarPID}) {
				t.Fatalf("%s signaled peers %v, want the sidecar tandem [%d]", id, got, sidecarPID)
			}
			p.wantExit("sidecar", 0)
			if src := p.tandemLine("sidecar", "", "done-seen").Field("source"); src != "done-signal" {
				t.Fatalf("sidecar saw the main done from %q, want done-signal", src)
			}
			if ex := p.tandemLine("sidecar", "", "exiting"); ex.Num("exit_code") != 0 || ex.Field("reason") != "stopped" {
				t.Fatalf("sidecar exiting with %v, want exit_code 0, reason stopped", ex)
			}
			// tandem forwards as it receives, so a forwarded USR2 would be
			// recorded before the stop signal.
			want := []string{strconv.Itoa(int(syscall.SIGTERM))}
			if got := readLines(out)[1:]; !slices.Equal(got, want) {
				t.Fatalf("sidecar's CMD received signals %q, want only SIGTERM %q: the done signal must not be forwarded", got, want)
			}
		})
	}
}

// mainSignalingPeers announces through `tandem main --signal-peers` over
// the CMD argv, started in the pod as "main".
func mainSignalingPeers(argv ...string) func(t *testing.T, p *pod) (id, mode string) {
	return func(t *testing.T, p *pod) (string, string) {
		p.start("main", append([]string{tandemBin, "main", "--signal-peers", "--"}, argv...)...)
		return "main", "main"
	}
}
