package integration

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Helpers and tools shared by the fault_*_test.go files: tandem under faults
// (odd files, hostile servers, signal storms, escaping processes, a
// read-only root, SIGKILL), asserting what the user gets.

// nobody is the uid and gid of the non-root runs (65534, "nobody").
const nobody = 65534

// hostPID is this process's pid as the test sees it, even inside a fresh
// PID namespace: /proc is the host's (newPIDNamespace does not remount it),
// and /proc/self resolves in the namespace of that /proc.
func hostPID() int {
	target, err := os.Readlink("/proc/self")
	if err != nil {
		return -1
	}
	pid, _ := strconv.Atoi(target)
	return pid
}

// fault-exec BIN IGNORED ARGS...: exec BIN with ARGS. startTandem puts the
// tandem under test after its prefix; this swaps in a copy that another
// uid can run (see faultUserBinaries).
func faultHelperExec(args []string) int {
	bin, argv := args[0], append([]string{"tandem"}, args[2:]...)
	err := syscall.Exec(bin, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "fault-exec %s: %v\n", bin, err)
	return 96
}

// fault-escape OUT: start a grandchild that calls setsid (leaving CMD's
// process group and session), wait until it reported its pid to OUT, then
// exit 0 without waiting for it.
func faultHelperEscape(args []string) int {
	self, err := os.Executable()
	if err != nil {
		return 95
	}
	ready, readyWriter, err := os.Pipe()
	if err != nil {
		return 95
	}
	grandchild := exec.Command(self, helperArg, "fault-escapee", args[0])
	// Nothing of tandem's is inherited: an escapee holding tandem's stderr
	// would keep the test's log reader open after tandem exits.
	grandchild.Stdout = readyWriter
	grandchild.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := grandchild.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fault-escape:", err)
		return 95
	}
	readyWriter.Close()
	if _, err := bufio.NewReader(ready).ReadString('\n'); err != nil {
		fmt.Fprintln(os.Stderr, "fault-escape: grandchild did not report:", err)
		return 95
	}
	return 0
}

// fault-escapee OUT: write "escapee HOSTPID SID" to OUT, say so on stdout,
// then run until killed.
func faultHelperEscapee(args []string) int {
	sid, _ := unix.Getsid(0)
	appendLine(args[0], fmt.Sprintf("escapee %d %d", hostPID(), sid))
	fmt.Println("ok")
	os.Stdout.Close()
	select {}
}

// fault-hostpid-record PIDFILE OUT [EXIT-SIGNAL [CODE]]: write "host PID"
// to PIDFILE, then behave as record-signals OUT ....
func faultHelperHostPIDRecord(args []string) int {
	appendLine(args[0], fmt.Sprintf("host %d", hostPID()))
	return helperRecordSignals(args[1:])
}

// fault-probe-hang PIDFILE: an exec: probe that never answers. It writes
// its host pid to PIDFILE and blocks with default signal dispositions.
func faultHelperProbeHang(args []string) int {
	appendLine(args[0], strconv.Itoa(hostPID()))
	select {}
}

// fault-ro-root RWDIR BIN IGNORED ARGS...: in the mount namespace its
// parent unshared, make every mount read-only except RWDIR (the emptyDir),
// check that the root really refuses writes, then become uid/gid 65534 and
// exec BIN ARGS: a container with readOnlyRootFilesystem and runAsUser.
func faultHelperReadOnlyRoot(args []string) int {
	rw, bin, argv := args[0], args[1], append([]string{"tandem"}, args[3:]...)
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "fault-ro-root: %s: %v\n", what, err)
		return 94
	}
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, attr); err != nil {
		return fail("make / read-only", err)
	}
	// A bind mount copies the read-only flag; remounting it without
	// MS_RDONLY makes this one mount writable again.
	if err := unix.Mount(rw, rw, "", unix.MS_BIND, ""); err != nil {
		return fail("bind "+rw, err)
	}
	if err := unix.Mount("", rw, "", unix.MS_BIND|unix.MS_REMOUNT, ""); err != nil {
		return fail("remount "+rw+" read-write", err)
	}
	probe := filepath.Join(filepath.Dir(rw), "fault-ro-probe")
	if err := os.WriteFile(probe, nil, 0o644); !errors.Is(err, unix.EROFS) {
		os.Remove(probe)
		return fail("the root is still writable", err)
	}
	if err := unix.Setgroups(nil); err != nil {
		return fail("setgroups", err)
	}
	if err := unix.Setresgid(nobody, nobody, nobody); err != nil {
		return fail("setresgid", err)
	}
	if err := unix.Setresuid(nobody, nobody, nobody); err != nil {
		return fail("setresuid", err)
	}
	err := syscall.Exec(bin, argv, os.Environ())
	return fail("exec "+bin, err)
}

// fault-ro-volume DIR BIN IGNORED ARGS...: in the mount namespace its
// parent unshared, bind-mount DIR read-only over itself (a volume mounted
// read-only), check that it refuses writes, then exec BIN ARGS as root.
func faultHelperReadOnlyVolume(args []string) int {
	dir, bin, argv := args[0], args[1], append([]string{"tandem"}, args[3:]...)
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "fault-ro-volume: %s: %v\n", what, err)
		return 94
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		return fail("bind "+dir, err)
	}
	if err := unix.Mount("", dir, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		return fail("remount "+dir+" read-only", err)
	}
	probe := filepath.Join(dir, "fault-ro-probe")
	if err := os.WriteFile(probe, nil, 0o644); !errors.Is(err, unix.EROFS) {
		os.Remove(probe)
		return fail("the volume is still writable", err)
	}
	err := syscall.Exec(bin, argv, os.Environ())
	return fail("exec "+bin, err)
}

// faultBinaries are the copies of tandem and of this test binary that any
// uid can run (otherUIDs), and a fresh directory any uid can enter:
// t.TempDir is private to root.
type faultBinaries struct {
	dir    string
	tandem string
	helper string
}

func faultUserBinaries(t *testing.T) faultBinaries {
	t.Helper()
	dir := worldWritableDir(t)
	return faultBinaries{
		dir:    dir,
		tandem: otherUIDs.tandem,
		helper: otherUIDs.helper,
	}
}

// helperArgv is helper() for the copied test binary.
func (b faultBinaries) helperArgv(name string, args ...string) []string {
	return append([]string{b.helper, helperArg, name}, args...)
}

// asNobody makes startTandem run the copied tandem as uid/gid 65534.
func (b faultBinaries) asNobody(t *testing.T) procOptions {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running tandem as uid 65534 needs root")
	}
	return procOptions{
		prefix: b.helperArgv("fault-exec", b.tandem),
		attr:   &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}},
	}
}

// killCMDOnCleanup kills CMD (pid, from record-signals' "ready PID") when
// the test ends: CMD holds tandem's stderr, so after a failure that left it
// running the harness would wait for the end of tandem's log forever.
func killCMDOnCleanup(t *testing.T, signalsFile string) int {
	t.Helper()
	pid := waitReadyPID(t, signalsFile)
	t.Cleanup(openPidfd(t, pid).kill)
	return pid
}
