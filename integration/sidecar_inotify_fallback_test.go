package integration

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// scInotifyUID is a uid no account uses, so that using up its inotify
// instances disturbs nothing else on the machine (the limit is per uid).
const scInotifyUID = 61721

// With every inotify instance of its uid taken (a real fault: the kernel
// refuses inotify_init1 with EMFILE, as on a node crowded with watchers),
// the sidecar warns that it falls back to polling and still sees the done
// file through --poll-interval.
func TestSidecarInotifyUnavailableFallsBackToPolling(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: runs tandem as a dedicated uid whose inotify instances a helper uses up")
	}
	t.Parallel()
	dir := worldWritableDir(t)
	// The uid cannot reach the test binary or TANDEM_BIN where they live.
	bin, helperCopy := otherUIDs.tandem, otherUIDs.helper
	asUID := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: scInotifyUID, Gid: scInotifyUID}}

	heldOut := inDir(dir, "held")
	holder := exec.Command(helperCopy, helperArg, "sc-hold-inotify", heldOut)
	holder.SysProcAttr = asUID
	holder.Stderr = os.Stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = holder.Process.Kill()
		_ = holder.Wait()
	})
	held := waitLines(t, heldOut, 1)[0]
	if !strings.HasPrefix(held, "held ") || strings.HasPrefix(held, "held 0 ") || !strings.Contains(held, "too many open files") {
		t.Fatalf("helper could not use up the inotify instances of uid %d: %q", scInotifyUID, held)
	}

	done, out := inDir(dir, "done"), inDir(dir, "signals")
	p := startTandem(t, procOptions{bin: bin, attr: asUID},
		cmdArgs([]string{"sidecar", "--poll-interval", "20ms", "--done-file", done},
			[]string{helperCopy, helperArg, "record-signals", out, "15"})...)
	warning := p.waitFor("the inotify-unavailable warning", func(l kit.Line) bool {
		msg := l.Field("message")
		return l.Field("level") == "warn" && strings.Contains(msg, "inotify unavailable") && strings.Contains(msg, "falling back to polling")
	})
	if !strings.Contains(warning.Field("error"), "too many open files") {
		t.Fatalf("warning does not carry the kernel's error: %v", warning)
	}
	waitReadyPID(t, out)
	scWriteFile(t, done, "")

	p.scWantExit(0, "stopped")
	p.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited")
}
