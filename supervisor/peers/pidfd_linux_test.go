package peers

import (
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

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
