package integration

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// main --needs READY_FILE: the sidecar's tandem holds READY_FILE.lifeline
// from its start until it exits; a main that needs it stops CMD (or never
// starts it) when that tandem ends before the main is done. Every order of
// events, with the built binary and real lifelines.

// needsSidecar starts `tandem sidecar --name NAME --ready-file READY`, with
// extra flags, and waits until its ready file is written.
func needsSidecar(t *testing.T, name, ready string, extra ...string) *tandemProc {
	t.Helper()
	args := append([]string{"sidecar", "--name", name, "--ready-file", ready}, extra...)
	p := startTandem(t, procOptions{}, cmdArgs(args, helper("sleep"))...)
	p.waitEvent("ready-written")
	return p
}

// waitNth waits for the nth line with event.
func (p *tandemProc) waitNth(event string, n int) {
	p.t.Helper()
	seen := 0
	p.waitFor(event, func(l kit.Line) bool {
		if l.Is(event) {
			seen++
		}
		return seen >= n
	})
}

// needsMain starts `tandem main --needs READY...` with extra flags and CMD.
func needsMain(t *testing.T, opts procOptions, readyFiles []string, cmd []string, extra ...string) *tandemProc {
	t.Helper()
	args := []string{"main"}
	for _, r := range readyFiles {
		args = append(args, "--needs", r)
	}
	return startTandem(t, opts, cmdArgs(append(args, extra...), cmd)...)
}

// wantSidecarLost checks the main's sidecar-lost line names the sidecar
// and its ready file.
func wantSidecarLost(t *testing.T, main *tandemProc, name, ready string) {
	t.Helper()
	lost := main.waitEvent("sidecar-lost")
	if lost.Field("sidecar") != name || lost.Field("ready_file") != ready {
		t.Fatalf("sidecar-lost %v, want sidecar %q and ready file %s", lost, name, ready)
	}
}

// The sidecar's tandem killed outright while the main's CMD runs: CMD is
// stopped, the done file and the termination message say sidecar-lost and
// name the sidecar.
func TestNeedsSidecarKilledWhileCMDRuns(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready, done, term := inDir(dir, "db-proxy.ready"), inDir(dir, "job.done"), inDir(dir, "termination-log")
	sidecar := needsSidecar(t, "db-proxy", ready)
	main := needsMain(t, procOptions{}, []string{ready}, helper("sleep"), "--done-file", done, "--termination-log", term)
	main.waitEvent("cmd-started")
	killOutright(t, sidecar)
	main.scWantExit(143, "sidecar-lost")
	wantSidecarLost(t, main, "db-proxy", ready)
	if stop := main.waitEvent("stop-sent"); stop.Field("signal") != "SIGTERM" {
		t.Fatalf("stop-sent %v, want SIGTERM", stop)
	}
	scWantStatus(t, done, "done", 143, "SIGTERM", "sidecar-lost")
	msg := waitFile(t, term)
	for _, want := range []string{`"reason":"sidecar-lost"`, `\"db-proxy\"`, ready} {
		if !strings.Contains(msg, want) {
			t.Errorf("termination message %s does not say %s", msg, want)
		}
	}
}

// Lost before ready: CMD never starts, and the main ends at once, not after
// its five-minute --wait-timeout. The sidecar's CMD crashing with no restart
// left ends its tandem as surely as a kill.
func TestNeedsSidecarLostBeforeReady(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"killed outright", "its CMD crashed"} {
		t.Run(how, func(t *testing.T) {
			dir := tempDir(t)
			ready, done, mark := inDir(dir, "db-proxy.ready"), inDir(dir, "job.done"), inDir(dir, "ran")
			args := cmdArgs([]string{"sidecar", "--name", "db-proxy", "--ready-file", ready, "--ready-when", "file:" + inDir(dir, "never")},
				helper("sleep"))
			sidecar := startTandem(t, procOptions{}, args...)
			sidecarCMD := sidecar.childPID()
			main := needsMain(t, procOptions{}, []string{ready}, helper("mark", mark), "--done-file", done, "--wait-timeout", "5m")
			main.waitEvent("sidecar-attached")
			if how == "killed outright" {
				killOutright(t, sidecar)
			} else if err := syscall.Kill(sidecarCMD, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			main.scWantExit(1, "sidecar-lost")
			wantSidecarLost(t, main, "db-proxy", ready)
			scWantStatus(t, done, "done", 1, "", "sidecar-lost")
			if main.hasEvent("cmd-started") || fileExists(mark) {
				t.Fatal("CMD started without its sidecar")
			}
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// The main is already stopping on its own termination signal when the
// sidecar goes: said, but no stop signal and no change of reason.
func TestNeedsSidecarLostWhileMainStopping(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready, signals := inDir(dir, "db-proxy.ready"), inDir(dir, "signals")
	sidecar := needsSidecar(t, "db-proxy", ready)
	// CMD records SIGTERM and goes on; SIGUSR1 (10) ends it with 0.
	main := needsMain(t, procOptions{}, []string{ready}, helper("record-signals", signals, "10"), "--stop-signal", "INT")
	waitLines(t, signals, 1)
	main.signal(syscall.SIGTERM)
	waitLines(t, signals, 2)
	killOutright(t, sidecar)
	if lost := main.waitEvent("sidecar-lost"); lost.Field("level") != "info" {
		t.Fatalf("sidecar-lost %v, want the info line of a main already stopping", lost)
	}
	main.signal(syscall.SIGUSR1)
	main.scWantExit(0, "exited")
	if got := readLines(signals)[1:]; strings.Join(got, " ") != "15 10" {
		t.Fatalf("CMD received %v, want 15 then 10 (no stop signal for the loss)", got)
	}
}

// CMD restarted inside the sidecar keeps its tandem, and its lifeline: not
// a loss. The main ends on its own, exit 0.
func TestNeedsRestartInsideSidecar(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready, done := inDir(dir, "db-proxy.ready"), inDir(dir, "job.done")
	sidecar := needsSidecar(t, "db-proxy", ready, "--restart", "always", "--done-file", done)
	stdin, feed := io.Pipe()
	main := needsMain(t, procOptions{stdin: stdin}, []string{ready}, helper("cat"), "--done-file", done)
	main.waitEvent("cmd-started")
	if err := syscall.Kill(sidecar.childPID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	sidecar.waitEvent("restarting")
	sidecar.waitNth("cmd-started", 2)
	sidecar.waitNth("ready-written", 2)
	feed.Close() // the main's CMD ends on its own
	main.scWantExit(0, "exited")
	sidecar.scWantExit(0, "stopped")
	if main.hasEvent("sidecar-lost") {
		t.Fatal("a restart inside the sidecar was taken for a loss")
	}
}

// Never a false loss: a sidecar asked to stop because the main is done
// stops after the main is done, 50 times in a row, whatever the main's code.
func TestNeedsNormalEndsNeverLost(t *testing.T) {
	t.Parallel()
	for i := range 50 {
		dir := tempDir(t)
		ready, done := inDir(dir, "db-proxy.ready"), inDir(dir, "job.done")
		code := []string{"0", "3", "0", "1", "0"}[i%5]
		sidecar := needsSidecar(t, "db-proxy", ready, "--done-file", done)
		main := needsMain(t, procOptions{}, []string{ready}, helper("exit", code), "--done-file", done)
		main.scWantExit(int(code[0]-'0'), "exited")
		sidecar.scWantExit(0, "stopped")
		if main.hasEvent("sidecar-lost") {
			t.Fatalf("run %d (exit %s): a sidecar stopped after the main was done was reported lost", i, code)
		}
	}
}

// restartPolicy OnFailure: the main lost with its sidecar is started again
// in the same directory; it waits (no loss: nothing it attached to let go)
// for the sidecar's next tandem and its ready file written anew, then runs.
func TestNeedsMainRestartedAttachesToNextSidecar(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready, done := inDir(dir, "db-proxy.ready"), inDir(dir, "job.done")
	first := needsSidecar(t, "db-proxy", ready, "--done-file", done)
	main := needsMain(t, procOptions{}, []string{ready}, helper("sleep"), "--done-file", done)
	main.waitEvent("cmd-started")
	killOutright(t, first) // leaves its lifeline and ready file behind
	main.scWantExit(143, "sidecar-lost")

	retried := needsMain(t, procOptions{}, []string{ready}, helper("exit", "0"), "--done-file", done)
	retried.waitFor("the wait for the next sidecar", func(l kit.Line) bool { return l.Is("waiting") && l.Field("path") == ready })
	next := needsSidecar(t, "db-proxy", ready, "--done-file", done)
	retried.scWantExit(0, "exited")
	next.scWantExit(0, "stopped")
	if retried.hasEvent("sidecar-lost") {
		t.Fatal("the retried main took the earlier sidecar's released lifeline for a loss")
	}
}

// A ready file written by something that is not `tandem sidecar`: waited
// for, said once, CMD runs.
func TestNeedsReadyFileWithoutLifeline(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready := inDir(dir, "db-proxy.ready")
	main := needsMain(t, procOptions{}, []string{ready}, helper("exit", "0"), "--wait-interval", "20ms")
	main.waitEvent("waiting")
	scWriteFile(t, ready, "")
	main.scWantExit(0, "exited")
	if n := len(main.scLinesWith("needs-without-lifeline")); n != 1 {
		t.Fatalf("needs-without-lifeline said %d times, want once", n)
	}
}

// Two mains needing one sidecar: both are stopped when it goes.
func TestNeedsTwoMainsOneSidecar(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready := inDir(dir, "db-proxy.ready")
	sidecar := needsSidecar(t, "db-proxy", ready)
	mains := []*tandemProc{
		needsMain(t, procOptions{}, []string{ready}, helper("sleep"), "--name", "export"),
		needsMain(t, procOptions{}, []string{ready}, helper("sleep"), "--name", "report"),
	}
	for _, m := range mains {
		m.waitEvent("cmd-started")
	}
	killOutright(t, sidecar)
	for _, m := range mains {
		m.scWantExit(143, "sidecar-lost")
		wantSidecarLost(t, m, "db-proxy", ready)
	}
}

// One main needing two sidecars: it starts once both are ready, and the one
// lost is the one named.
func TestNeedsOneMainTwoSidecars(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	proxy, cache := inDir(dir, "db-proxy.ready"), inDir(dir, "cache.ready")
	needsSidecar(t, "db-proxy", proxy)
	main := needsMain(t, procOptions{}, []string{proxy, cache}, helper("sleep"), "--wait-interval", "20ms")
	main.waitFor("the proxy ready", func(l kit.Line) bool { return l.Is("condition-holds") && l.Field("sidecar") == "db-proxy" })
	if main.hasEvent("cmd-started") {
		t.Fatal("CMD started before both sidecars were ready")
	}
	second := needsSidecar(t, "cache", cache)
	main.waitEvent("cmd-started")
	killOutright(t, second)
	main.scWantExit(143, "sidecar-lost")
	wantSidecarLost(t, main, "cache", cache)
}

// Containers running as different users share the volume: the lifeline is
// mode 0666, the ready file 0644, and the loss is seen across users.
func TestNeedsDifferentUsers(t *testing.T) {
	t.Parallel()
	const sidecarUID, mainUID = 61021, 61022
	dir := worldWritableDir(t)
	tandem := otherUIDs.tandem
	ready := inDir(dir, "db-proxy.ready")
	as := func(uid uint32) *syscall.SysProcAttr {
		return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	}
	sidecar := startTandem(t, procOptions{bin: tandem, attr: as(sidecarUID)},
		"sidecar", "--name", "db-proxy", "--ready-file", ready, "--", "sleep", "300")
	sidecar.waitEvent("ready-written")
	main := startTandem(t, procOptions{bin: tandem, attr: as(mainUID)}, "main", "--needs", ready, "--", "sleep", "300")
	main.waitEvent("cmd-started")
	if err := sidecar.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	main.scWantExit(143, "sidecar-lost")
	wantSidecarLost(t, main, "db-proxy", ready)
}
