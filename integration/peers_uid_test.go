package integration

import (
	"fmt"
	"strings"
	"testing"
)

// Signalling another container's process needs the same UID or CAP_KILL.
// A `done` running as another user without CAP_KILL fails at once, and its
// error names the pid, the reason and the two fixes; the same user succeeds
// without any capability.
func TestPeersOtherUID(t *testing.T) {
	t.Parallel()
	const sidecarUID, otherUID = 61001, 61002
	p := startPod(t)
	// TANDEM_BIN's directory may be private to root.
	tandem := otherUIDs.tandem

	sidecarPID := p.startAs(podCommand{ID: "sidecar", UID: sidecarUID,
		Argv: []string{tandem, "sidecar", "--", "sleep", "300"}})
	p.tandemLine("sidecar", "", "cmd-started")

	// A non-root uid has no capabilities after exec: no CAP_KILL.
	p.startAs(podCommand{ID: "done-other", UID: otherUID,
		Argv: []string{tandem, "done", "--signal-peers", "--peer-timeout", "60s"}})
	if code := p.exitCode("done-other"); code == 0 {
		t.Fatalf("done as uid %d exited 0, want a failure: it cannot signal uid %d", otherUID, sidecarUID)
	}
	// The failure is a JSON line with its event, like every other.
	msgs := []string{p.tandemLine("done", "", "peers-failed").Field("error")}
	for _, want := range []string{
		fmt.Sprintf("pid %d", sidecarPID), // which process
		"operation not permitted",         // why
		"another user",
		"one runAsUser", // the fix, and why root containers need none
		"as root can already signal",
	} {
		if !strings.Contains(msgs[0], want) {
			t.Errorf("error %q does not say %q", msgs[0], want)
		}
	}
	if got := p.signaledPeers("done", ""); len(got) > 0 {
		t.Fatalf("done logged peers signaled: %v", got)
	}

	// Same uid, still no capabilities: allowed.
	p.startAs(podCommand{ID: "done-same", UID: sidecarUID,
		Argv: []string{tandem, "done", "--signal-peers", "--peer-timeout", "60s"}})
	p.wantExit("done-same", 0)
	p.wantExit("sidecar", 0)
	if src := p.tandemLine("sidecar", "", "done-seen").Field("source"); src != "done-signal" {
		t.Fatalf("sidecar saw the main done from %q, want done-signal", src)
	}
}
