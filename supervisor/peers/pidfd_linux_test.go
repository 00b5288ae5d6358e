package peers

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestProcPeerFinderSignalPeerChecksIdentity: SignalPeer re-reads the
// command line after pinning the process with a pidfd, so a pid now held by
// another program (pid reuse between scan and signal) is not signalled,
// while the sidecar it was found as is.
func TestProcPeerFinderSignalPeerChecksIdentity(t *testing.T) {
	dir := t.TempDir()
	// cat named `tandem sidecar`: it opens the FIFO "sidecar" and blocks
	// there, a long-running process whose command line is a peer's.
	if err := unix.Mkfifo(filepath.Join(dir, "sidecar"), 0o600); err != nil {
		t.Fatal(err)
	}
	peer := &exec.Cmd{Path: "/bin/cat", Args: []string{"tandem", "sidecar"}, Dir: dir}
	other := exec.Command("/bin/cat", filepath.Join(dir, "sidecar"))
	for _, c := range []*exec.Cmd{peer, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		waitArgv(t, c)
	}
	finder := &ProcFinder{procRoot: "/proc"}

	// The other process stands in for a pid reused by a program that is not
	// a sidecar: it must not be signalled.
	err := finder.SignalPeer(Peer{PID: other.Process.Pid}, unix.SIGTERM)
	if !errors.Is(err, unix.ESRCH) {
		t.Fatalf("SignalPeer(non-sidecar) = %v, want ESRCH", err)
	}
	// A name that no longer matches is another process too.
	err = finder.SignalPeer(Peer{PID: peer.Process.Pid, Name: "proxy"}, unix.SIGTERM)
	if !errors.Is(err, unix.ESRCH) {
		t.Fatalf("SignalPeer(wrong name) = %v, want ESRCH", err)
	}
	if err := finder.SignalPeer(Peer{PID: peer.Process.Pid}, unix.SIGTERM); err != nil {
		t.Fatalf("SignalPeer(sidecar) = %v", err)
	}
	_ = peer.Wait()
	if ws := peer.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("sidecar ended with %v, want killed by SIGTERM", peer.ProcessState)
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the non-sidecar process was signalled: %v", err)
	}
}

// waitArgv waits until the kernel shows c's new command line. Start
// returns once exec has closed the CLOEXEC pipe, which is before the new
// program's arguments are in place: read at once, /proc/PID/cmdline is
// still the forked test binary's (a third of the time on a 2-core machine),
// and SignalPeer rightly takes such a process for another program.
func waitArgv(t *testing.T, c *exec.Cmd) {
	t.Helper()
	path := "/proc/" + strconv.Itoa(c.Process.Pid) + "/cmdline"
	want := []byte(strings.Join(c.Args, "\x00") + "\x00")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, want) {
			return
		}
	}
	t.Fatalf("pid %d: %s never showed %q", c.Process.Pid, path, c.Args)
}
