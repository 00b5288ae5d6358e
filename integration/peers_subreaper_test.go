package integration

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// In a shared PID namespace the sidecar tandem is not PID 1 (the pause
// container is): it makes itself a child subreaper, so orphans of its CMD
// come to it, not to PID 1, and it reaps them; and it still stops on the
// done signal.
func TestPeersSidecarNotPID1ReapsOrphans(t *testing.T) {
	t.Parallel()
	p := startPod(t)
	out := inDir(tempDir(t), "orphan")
	sidecarPID := p.start("sidecar", sidecarArgv(nil, helper("peers-orphaner", out)...)...)
	if sidecarPID == 1 {
		t.Fatal("sidecar is PID 1 of the pod; the test needs it not to be")
	}

	// CMD's child started a grandchild and exited; CMD reaped it, so the
	// grandchild was reparented already.
	lines := waitLines(t, out, 2)
	if lines[1] != "middle-exited" {
		t.Fatalf("%s: %q, want grandchild PID then middle-exited", out, lines)
	}
	orphan, err := strconv.Atoi(strings.TrimPrefix(lines[0], "grandchild "))
	if err != nil {
		t.Fatalf("%s: %q, want \"grandchild PID\"", out, lines[0])
	}
	if got := p.do(podCommand{Op: "inspect", PID: orphan}); got.Num("ppid") != sidecarPID {
		t.Fatalf("orphan %d has parent %v, want the sidecar tandem %d (a subreaper), not PID 1", orphan, got, sidecarPID)
	}

	// The orphan exits and becomes the sidecar tandem's zombie.
	p.do(podCommand{Op: "kill-wait", PID: orphan, Sig: int(syscall.SIGTERM)})

	p.start("done", tandemBin, "done", "--signal-peers")
	p.wantExit("done", 0)
	p.wantExit("sidecar", 0)
	p.tandemLine("sidecar", "", "stop-sent")
	// Had tandem not reaped it, the zombie would now belong to PID 1, the
	// pod, which never reaps processes it did not start: it would still be
	// listed.
	if got := p.do(podCommand{Op: "inspect", PID: orphan}); got.Fields["gone"] != true {
		t.Fatalf("orphan %d after the sidecar exited: %v, want gone (reaped by the sidecar tandem)", orphan, got)
	}
	if warned := p.tandemLines("sidecar", "", "subreaper-failed"); len(warned) > 0 {
		t.Fatalf("sidecar warned %v", warned)
	}
}
