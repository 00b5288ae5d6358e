package integration

import (
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Two sidecars with different --name: `done --peer NAME` signals exactly the
// one of that name (given as `--name X` or `--name=X`), and the other keeps
// running until it is told.
func TestPeersDonePeerPicksOne(t *testing.T) {
	t.Parallel()
	p := startPod(t)
	dir := tempDir(t)
	outProxy, outLogs := inDir(dir, "proxy"), inDir(dir, "logs")
	pidProxy := p.start("proxy", sidecarArgv([]string{"--name", "proxy"}, helper("record-signals", outProxy, "15")...)...)
	pidLogs := p.start("logs", sidecarArgv([]string{"--name=logs"}, helper("record-signals", outLogs, "15")...)...)
	waitReadyPID(t, outProxy)
	waitReadyPID(t, outLogs)

	p.start("done-logs", tandemBin, "done", "--peer", "logs")
	p.wantExit("done-logs", 0)
	if got := p.signaledPeers("done", ""); !slices.Equal(got, []int{pidLogs}) {
		t.Fatalf("done --peer logs signaled %v, want only logs [%d] (proxy is %d)", got, pidLogs, pidProxy)
	}
	p.wantExit("logs", 0)

	wantUntold(t, p, "proxy", outProxy)
}

// `done --peer missing` exits 1 after --peer-timeout, naming the peer and
// how to name one, and signals nobody.
func TestPeersDoneMissingPeer(t *testing.T) {
	t.Parallel()
	p := startPod(t)
	outProxy := inDir(tempDir(t), "proxy")
	p.start("proxy", sidecarArgv([]string{"--name", "proxy"}, helper("record-signals", outProxy, "15")...)...)
	waitReadyPID(t, outProxy)

	p.start("done", tandemBin, "done", "--peer", "missing", "--peer-timeout", "300ms")
	p.wantExit("done", 1)
	// The failure is a JSON line with its event, like every other.
	msgs := []string{p.tandemLine("done", "", "peers-failed").Field("error")}
	for _, want := range []string{"peer not found", "--name missing", "within 300ms", "TANDEM_NAME"} {
		if !strings.Contains(msgs[0], want) {
			t.Errorf("error %q does not say %q", msgs[0], want)
		}
	}
	if got := p.signaledPeers("done", ""); len(got) > 0 {
		t.Fatalf("done --peer missing signaled %v", got)
	}
	wantUntold(t, p, "proxy", outProxy)
}

// wantUntold checks that sidecar id (started with --name id, CMD
// record-signals OUT 15) was not told the main is done: stopped from
// outside, it forwards SIGTERM and ends as its CMD does (0, reason exited),
// not as a requested stop. A done signal sent earlier would be handled
// first: it was sent before this SIGTERM.
func wantUntold(t *testing.T, p *pod, id, out string) {
	t.Helper()
	p.do(podCommand{Op: "signal", ID: id, Sig: int(syscall.SIGTERM)})
	if code := p.exitCode(id); code != 0 {
		t.Fatalf("sidecar %s exited %d, want 0 (its CMD's code)", id, code)
	}
	if done := p.tandemLines("sidecar", id, "done-seen"); len(done) > 0 {
		t.Fatalf("sidecar %s saw the main done: %v", id, done)
	}
	if ex := p.tandemLine("sidecar", id, "exiting"); ex.Field("reason") != "exited" {
		t.Fatalf("sidecar %s exiting %v, want reason exited: nobody asked it to stop", id, ex)
	}
	if got := strings.Join(readLines(out)[1:], ","); got != "15" {
		t.Fatalf("%s's CMD received %q, want only the forwarded SIGTERM (15)", id, got)
	}
}
