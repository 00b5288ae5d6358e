package integration

import (
	"os/exec"
	"sync"
	"syscall"
	"testing"
)

var (
	pidNamespaceOnce sync.Once
	pidNamespaceErr  error
)

// newPIDNamespace makes tandem PID 1 of a fresh PID namespace (the way a
// container runtime starts it), or skips the test, saying why, where
// namespaces cannot be created (not root, seccomp, nested sandboxes).
// /proc stays the host's: tandem finds itself through /proc/self either way.
func newPIDNamespace(t testing.TB) *syscall.SysProcAttr {
	t.Helper()
	pidNamespaceOnce.Do(func() {
		probe := exec.Command("/bin/true")
		probe.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
		pidNamespaceErr = probe.Run()
	})
	if pidNamespaceErr != nil {
		t.Skipf("cannot create a PID namespace here (%v); run the tests as root", pidNamespaceErr)
	}
	return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
}
