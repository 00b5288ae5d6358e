package integration

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// A main killed outright (SIGKILL of its container's PID 1) writes no done
// file; its lifeline tells the sidecar, which stops as for a done main.

// startKillableMain starts `tandem main` as PID 1 of a fresh PID namespace,
// as a container runtime does, and waits until its CMD runs.
func startKillableMain(t *testing.T, opts procOptions, args ...string) *tandemProc {
	t.Helper()
	if opts.attr == nil {
		opts.attr = newPIDNamespace(t)
	} else {
		opts.attr.Cloneflags |= syscall.CLONE_NEWPID
	}
	return startTandem(t, opts, args...)
}

// killOutright SIGKILLs the main's PID 1: the kernel then ends its whole
// namespace, as the cgroup OOM group kill or `podman kill` do.
func killOutright(t *testing.T, p *tandemProc) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 137 {
		t.Fatalf("the killed main exited %d, want 137", code)
	}
}

func wantLost(t *testing.T, sidecar *tandemProc, done string) {
	t.Helper()
	sidecar.scWantExit(0, "stopped")
	if seen := sidecar.waitEvent("done-seen"); seen.Field("source") != "lost" || seen.Field("path") != done {
		t.Fatalf("done-seen %v, want source lost for %s", seen, done)
	}
}

func TestLifelineMainKilled(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
	sidecarCMD := sidecar.childPID()
	main := startKillableMain(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("sleep"))...)
	main.waitEvent("cmd-started")
	sidecar.waitEvent("main-attached")
	killOutright(t, main)
	wantLost(t, sidecar, done)
	if !processGone(sidecarCMD) {
		t.Fatal("the sidecar's CMD outlived it")
	}
	if _, err := os.Stat(done); err == nil {
		t.Fatal("a done file appeared, though the main was killed")
	}
}

// The sidecar starts after its main was already lost: it stops at once,
// without starting CMD.
func TestLifelineLateSidecar(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	main := startKillableMain(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("sleep"))...)
	main.waitEvent("cmd-started")
	killOutright(t, main)
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
	wantLost(t, sidecar, done)
	if sidecar.hasEvent("cmd-started") {
		t.Fatal("the late sidecar started CMD for a main already lost")
	}
}

// The lifeline is held from the start, before --wait-for.
func TestLifelineKilledDuringWaitFor(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done := inDir(dir, "done")
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
	main := startKillableMain(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done,
		"--wait-for", "file:" + inDir(dir, "never")}, helper("exit", "0"))...)
	main.waitEvent("waiting")
	sidecar.waitEvent("main-attached")
	killOutright(t, main)
	wantLost(t, sidecar, done)
}

// restartPolicy OnFailure: a lost main is a failed one; under --stop-when
// success the sidecar keeps CMD for the retried main, whose success ends it.
func TestLifelineStopWhenSuccessRetry(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--stop-when", "success", "--done-file", done},
		helper("sleep"))...)
	first := startKillableMain(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("sleep"))...)
	first.waitEvent("cmd-started")
	sidecar.waitEvent("main-attached")
	killOutright(t, first)
	sidecar.waitEvent("main-lost")
	retry := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("exit", "0"))...)
	retry.scWantExit(0, "exited")
	sidecar.scWantExit(0, "stopped")
	if seen := sidecar.waitEvent("done-seen"); seen.Field("source") != "done-file" || seen.Num("main_exit_code") != 0 {
		t.Fatalf("done-seen %v, want the retried main's done file", seen)
	}
	if n := len(sidecar.scLinesWith("cmd-started")); n != 1 {
		t.Fatalf("the sidecar's CMD started %d times, want 1", n)
	}
}

// A main that ends normally, however it ends, is never reported lost: its
// done file is written before the lifeline is released.
func TestLifelineNormalEndsNeverLost(t *testing.T) {
	t.Parallel()
	for i, code := range []string{"0", "3", "0", "1", "0", "7", "0", "0"} {
		done := inDir(tempDir(t), "done")
		sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
		sidecar.childPID()
		main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("exit", code))...)
		main.wait()
		sidecar.scWantExit(0, "stopped")
		if seen := sidecar.waitEvent("done-seen"); seen.Field("source") != "done-file" || sidecar.hasEvent("main-lost") {
			t.Fatalf("run %d (exit %s): done-seen %v; a normal end reported as lost", i, code, seen)
		}
	}
}

// Shared PID namespace, no volume: the sidecar holds the main that names it
// through a pidfd; the main killed outright is a lost main.
func TestLifelineSharedPIDMainKilled(t *testing.T) {
	t.Parallel()
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--name", "proxy"}, helper("sleep"))...)
	sidecar.childPID()
	main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--peer", "proxy"}, helper("sleep"))...)
	main.waitEvent("cmd-started")
	sidecar.waitEvent("main-attached")
	if err := main.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	main.wait()
	sidecar.scWantExit(0, "stopped")
	if seen := sidecar.waitEvent("done-seen"); seen.Field("source") != "lost" {
		t.Fatalf("done-seen %v, want lost", seen)
	}
}

// A main container that never starts must not keep the pod alive.
func TestMainStartTimeout(t *testing.T) {
	t.Parallel()
	done := inDir(tempDir(t), "done")
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done,
		"--main-start-timeout", "300ms"}, helper("sleep"))...)
	sidecar.scWantExit(0, "stopped")
	if seen := sidecar.waitEvent("done-seen"); seen.Field("source") != "no-main" {
		t.Fatalf("done-seen %v, want no-main", seen)
	}
}

// An attached main cancels --main-start-timeout. The main is waiting, its
// lifeline held, before the sidecar starts, so a loaded machine slow to
// start a process cannot spend the sidecar's 300ms; a lifeline put in
// place just as the sidecar looks is the watcher's unit test.
func TestMainStartTimeoutAttached(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, gate := inDir(dir, "done"), inDir(dir, "gate")
	main := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done,
		"--wait-for", "file:" + gate, "--wait-interval", "20ms"}, helper("exit", "0"))...)
	main.waitEvent("waiting")
	sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done,
		"--main-start-timeout", "300ms"}, helper("sleep"))...)
	sidecar.waitEvent("main-attached")
	// Well past the timeout, as counted by the main's own probes of the gate
	// (every 20ms): the sidecar must still be running.
	rounds := 0
	main.waitFor("25 probe rounds", func(l kit.Line) bool {
		if l.Field("condition") == "file:"+gate {
			rounds++
		}
		return rounds >= 25
	})
	if sidecar.hasEvent("done-seen") {
		t.Fatal("the sidecar stopped although its main was attached")
	}
	scWriteFile(t, gate, "")
	main.scWantExit(0, "exited")
	sidecar.scWantExit(0, "stopped")
	if seen := sidecar.waitEvent("done-seen"); seen.Field("source") != "done-file" {
		t.Fatalf("done-seen %v, want the main's done file", seen)
	}
}

// Something else at the lifeline's path, or a lifeline this sidecar cannot
// open: the sidecar says so once and relies on the done file alone, never
// "lost"; a main leaves what it did not make in place, and goes on.
func TestLifelineFaults(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"directory", "regular file"} {
		t.Run(fault, func(t *testing.T) {
			done := inDir(tempDir(t), "done")
			if fault == "directory" {
				if err := os.Mkdir(done+".lifeline", 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				scWriteFile(t, done+".lifeline", "")
			}
			sidecar := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("sleep"))...)
			sidecar.childPID()
			sidecar.waitEvent("lifeline-unavailable")
			main := startKillableMain(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("sleep"))...)
			main.waitEvent("lifeline-unavailable")
			main.waitEvent("cmd-started")
			killOutright(t, main)
			wantDoneFileAlone(t, sidecar, done)
		})
	}
	t.Run("not readable", func(t *testing.T) {
		// A FIFO held by root with mode 0600; the sidecar runs as nobody.
		b := faultUserBinaries(t)
		done := inDir(b.dir, "done")
		if err := syscall.Mkfifo(done+".lifeline", 0o600); err != nil {
			t.Fatal(err)
		}
		// This pod's, not another's: mkfifo(2) gives about one time in a
		// thousand an mtime whose nanoseconds read as another pod's tag.
		at := time.Unix(time.Now().Unix(), 1)
		mustDo(t, os.Chtimes(done+".lifeline", at, at))
		holder := startTandem(t, procOptions{}, "run", "--", "sh", "-c", "exec 3<>"+done+".lifeline; exec sleep 300")
		holder.waitEvent("cmd-started")
		sidecar := startTandem(t, b.asNobody(t), cmdArgs([]string{"sidecar", "--done-file", done}, b.helperArgv("sleep"))...)
		sidecar.childPID()
		sidecar.waitEvent("lifeline-unavailable")
		holder.signal(syscall.SIGTERM) // the holder goes away
		holder.wait()
		wantDoneFileAlone(t, sidecar, done)
	})
}

// wantDoneFileAlone: the sidecar still runs, and a done file stops it.
func wantDoneFileAlone(t *testing.T, sidecar *tandemProc, done string) {
	t.Helper()
	if sidecar.hasEvent("done-seen") {
		t.Fatal("the sidecar stopped without a done file")
	}
	scWriteFile(t, done, "")
	sidecar.scWantExit(0, "stopped")
	if seen := sidecar.waitEvent("done-seen"); seen.Field("source") != "done-file" {
		t.Fatalf("done-seen %v, want the done file", seen)
	}
}

// Containers running as different users: the main as nobody, the sidecar
// as root, and the other way round.
func TestLifelineAcrossUsers(t *testing.T) {
	t.Parallel()
	for _, mainIsNobody := range []bool{true, false} {
		b := faultUserBinaries(t)
		done := inDir(b.dir, "done")
		sidecarOpts, sidecarArgv := procOptions{}, helper("sleep")
		mainOpts, mainArgv := procOptions{}, helper("sleep")
		if mainIsNobody {
			mainOpts, mainArgv = b.asNobody(t), b.helperArgv("sleep")
		} else {
			sidecarOpts, sidecarArgv = b.asNobody(t), b.helperArgv("sleep")
		}
		sidecar := startTandem(t, sidecarOpts, cmdArgs([]string{"sidecar", "--done-file", done}, sidecarArgv)...)
		sidecar.waitEvent("cmd-started")
		main := startKillableMain(t, mainOpts, cmdArgs([]string{"main", "--done-file", done}, mainArgv)...)
		main.waitEvent("cmd-started")
		sidecar.waitEvent("main-attached")
		killOutright(t, main)
		wantLost(t, sidecar, done)
	}
}
