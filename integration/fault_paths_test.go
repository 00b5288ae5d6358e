package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// Path faults as another user, both ways, and on a read-only volume: each is
// caught before anything runs (CMD never starts, --wait-for is never
// probed), nothing is deleted, and tandem exits 125 with a path-unusable
// line naming the flag, the directory, the user and the cause.

// A main as uid 65534 whose done file's directory it cannot write or search
// (a volume mounted for another user).
func TestFaultMainCannotWriteDoneDir(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		mode  os.FileMode // of the root-owned directory
		cause string
	}{
		{"not writable", 0o755, "permission denied"},
		{"not searchable", 0o700, "permission denied"},
		{"read and search only", 0o555, "permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bins := faultUserBinaries(t)
			shared := rootOwnedDir(t, bins.dir, "shared", tc.mode)
			done, marker := inDir(shared, "done"), inDir(bins.dir, "ran")
			stale := writeStale(t, done)
			p := startTandem(t, bins.asNobody(t),
				cmdArgs([]string{"main", "--done-file", done, "--wait-for", "file:" + marker},
					bins.helperArgv("mark", marker))...)
			wantPathUnusable(t, p, "--done-file", shared, "65534", tc.cause)
			wantNothingRan(t, p, marker)
			wantUnchanged(t, done, stale)
		})
	}
}

// A sidecar as uid 65534 whose done file's directory it can neither watch
// nor search: 125 at once, even with the done file there, rather than warn
// "relying on polling" and wait for ever.
func TestFaultSidecarCannotSearchDoneDir(t *testing.T) {
	t.Parallel()
	bins := faultUserBinaries(t)
	shared := rootOwnedDir(t, bins.dir, "shared", 0o700)
	done, marker := inDir(shared, "done"), inDir(bins.dir, "ran")
	stale := writeStale(t, done)
	p := startTandem(t, bins.asNobody(t),
		cmdArgs([]string{"sidecar", "--done-file", done, "--poll-interval", "50ms"}, bins.helperArgv("mark", marker))...)
	line := wantPathUnusable(t, p, "--done-file", shared, "65534", "permission denied")
	if !strings.Contains(line.Field("message"), "search") {
		t.Errorf("message %q does not say the directory cannot be searched", line.Field("message"))
	}
	wantNothingRan(t, p, marker)
	wantUnchanged(t, done, stale)
	if p.hasEvent("watch-unavailable") {
		t.Error("warned that it relies on polling, though it cannot poll either")
	}
}

// The done file's directory becomes unsearchable while CMD runs: tandem
// fails at its next look (--poll-interval), stopping CMD, rather than wait
// for ever.
func TestFaultSidecarDoneDirBecomesUnsearchable(t *testing.T) {
	t.Parallel()
	bins := faultUserBinaries(t)
	shared := rootOwnedDir(t, bins.dir, "shared", 0o777)
	signals := inDir(bins.dir, "signals")
	p := startTandem(t, bins.asNobody(t),
		cmdArgs([]string{"sidecar", "--done-file", inDir(shared, "done"), "--poll-interval", "50ms"},
			bins.helperArgv("record-signals", signals, "15"))...)
	killCMDOnCleanup(t, signals)
	p.waitEvent("cmd-started")
	mustDo(t, os.Chmod(shared, 0o700))
	wantPathUnusable(t, p, "--done-file", shared, "65534", "permission denied")
	if lines := readLines(signals); lines[len(lines)-1] != "15" {
		t.Errorf("CMD recorded %q; want it stopped by SIGTERM (15)", lines)
	}
}

// A directory that can be searched but not read cannot be watched (inotify
// needs read permission): the sidecar polls, says so with an event, and
// sees the done file.
func TestFaultSidecarDoneDirNotWatchable(t *testing.T) {
	t.Parallel()
	bins := faultUserBinaries(t)
	shared := rootOwnedDir(t, bins.dir, "shared", 0o311)
	done, signals := inDir(shared, "done"), inDir(bins.dir, "signals")
	p := startTandem(t, bins.asNobody(t),
		cmdArgs([]string{"sidecar", "--done-file", done, "--poll-interval", "50ms"},
			bins.helperArgv("record-signals", signals, "15"))...)
	killCMDOnCleanup(t, signals)
	warning := p.waitFor("the cannot-watch warning", func(l kit.Line) bool {
		return l.Field("level") == "warn" && l.Field("dir") == shared
	})
	if !warning.Is("watch-unavailable") || !strings.Contains(warning.Field("error"), "permission denied") {
		t.Errorf("warning %v: want event watch-unavailable and the kernel's permission denied", warning)
	}
	announceDone(t, done)
	p.scWantExit(0, "stopped")
}

// A sidecar as uid 65534 that could not write its stopped file or its ready
// file: caught before CMD starts.
func TestFaultSidecarCannotWriteItsFiles(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--stopped-file", "--ready-file"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			bins := faultUserBinaries(t)
			shared := rootOwnedDir(t, bins.dir, "shared", 0o755)
			marker := inDir(bins.dir, "ran")
			p := startTandem(t, bins.asNobody(t),
				cmdArgs([]string{"sidecar", "--done-file", inDir(bins.dir, "done"), flag, inDir(shared, "file")},
					bins.helperArgv("mark", marker))...)
			wantPathUnusable(t, p, flag, shared, "65534", "permission denied")
			wantNothingRan(t, p, marker)
		})
	}
}

// The other way round: the sidecar is root, the main is uid 65534 and the
// volume was made by root for root. The main fails at start and its
// sidecar, told by the signal, stops instead of waiting for ever.
func TestFaultMainAsOtherUserTellsItsSidecar(t *testing.T) {
	t.Parallel()
	bins := faultUserBinaries(t)
	shared := rootOwnedDir(t, bins.dir, "shared", 0o755)
	done, signals, marker := inDir(shared, "done"), inDir(bins.dir, "signals"), inDir(bins.dir, "ran")
	sidecar := startTandem(t, procOptions{},
		cmdArgs([]string{"sidecar", "--name", "proxy", "--done-file", done}, helper("record-signals", signals, "15"))...)
	killCMDOnCleanup(t, signals)
	sidecar.waitEvent("cmd-started")
	main := startTandem(t, bins.asNobody(t),
		cmdArgs([]string{"main", "--done-file", done, "--peer", "proxy", "--peer-timeout", "1s"}, bins.helperArgv("mark", marker))...)
	wantPathUnusable(t, main, "--done-file", shared, "65534", "permission denied")
	wantNothingRan(t, main, marker)
	// uid 65534 cannot signal root's sidecar (no CAP_KILL): it says so, and
	// the sidecar's own --main-start-timeout is then what stops it. What is
	// proved here is that the main tried, and named why it could not.
	if failed := main.waitEvent("peers-failed"); !strings.Contains(failed.Field("error"), "operation not permitted") {
		t.Errorf("peers-failed %v: want the kernel's operation not permitted", failed)
	}
}

// A read-only volume (a read-only bind mount in a private mount namespace):
// a root main, and a root sidecar's stopped file, fail before CMD starts
// with the kernel's "read-only file system"; the stale done file stays.
func TestFaultReadOnlyVolume(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"main", "sidecar"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			if os.Geteuid() != 0 {
				t.Skip("a read-only bind mount needs root")
			}
			bins := faultUserBinaries(t)
			volume := rootOwnedDir(t, bins.dir, "volume", 0o777)
			done, marker := inDir(volume, "done"), inDir(bins.dir, "ran")
			stale := writeStale(t, done)
			args := []string{"main", "--done-file", done}
			flag := "--done-file"
			if mode == "sidecar" {
				args = []string{"sidecar", "--done-file", inDir(bins.dir, "other"), "--stopped-file", done}
				flag = "--stopped-file"
			}
			p := startTandem(t, procOptions{
				prefix: bins.helperArgv("fault-ro-volume", volume, bins.tandem),
				attr:   &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS},
			}, cmdArgs(args, bins.helperArgv("mark", marker))...)
			wantPathUnusable(t, p, flag, volume, "0", "read-only file system")
			wantNothingRan(t, p, marker)
			wantUnchanged(t, done, stale)
		})
	}
}

// A directory where the main's done file should be is a usage error, and
// tandem never removes it (os.Remove removed an empty one and wrote a file
// in its place). The CLI checks this first; this is the engine's own guard.
func TestFaultMainDoneFileIsDirectory(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, marker := inDir(dir, "done"), inDir(dir, "ran")
	mustDo(t, os.Mkdir(done, 0o755))
	code, _, stderr := runTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("mark", marker))...)
	if code != 2 {
		t.Errorf("exit %d, want 2 (usage); stderr:\n%s", code, stderr)
	}
	if info, err := os.Stat(done); err != nil || !info.IsDir() {
		t.Errorf("the directory at %s is gone (%v): tandem must never remove a directory", done, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("CMD ran")
	}
}

// `tandem done` as uid 65534 that cannot write the done file: exit 125 with
// a write-failed line among its JSON lines, not a plain-text one.
func TestFaultDoneCannotWrite(t *testing.T) {
	t.Parallel()
	bins := faultUserBinaries(t)
	shared := rootOwnedDir(t, bins.dir, "shared", 0o755)
	done := inDir(shared, "done")
	p := startTandem(t, bins.asNobody(t), "done", "--file", done)
	failed := p.waitEvent("write-failed")
	if code := p.wait(); code != 125 {
		t.Errorf("exit %d, want 125", code)
	}
	if failed.Field("path") != done || !strings.Contains(failed.Field("error"), "permission denied") {
		t.Errorf("write-failed %v: want it to name %s and the cause", failed, done)
	}
	for _, raw := range p.rawLines() {
		if !strings.HasPrefix(raw, "{") {
			t.Errorf("a plain-text line among the JSON lines: %q", raw)
		}
	}
}

// rootOwnedDir makes DIR/name owned by root with mode, beside the copied
// binaries (whose directory any uid can enter).
func rootOwnedDir(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	path := inDir(dir, name)
	mustDo(t, os.Mkdir(path, 0o700))
	mustDo(t, os.Chmod(path, mode))
	// The test removes it as root whatever its mode; a 0311 or 0700
	// directory still lets root in.
	return path
}

// writeStale puts an earlier main's done file at path, written as root.
func writeStale(t *testing.T, path string) string {
	t.Helper()
	const stale = `{"version":1,"name":"earlier","event":"done","exitCode":0,"reason":"exited"}` + "\n"
	mustDo(t, os.WriteFile(path, []byte(stale), 0o644))
	return stale
}

// wantPathUnusable: tandem exits 125 after a path-unusable error line
// naming flag, dir, the uid and the cause.
func wantPathUnusable(t *testing.T, p *tandemProc, flag, dir, uid, cause string) kit.Line {
	t.Helper()
	line := p.waitEvent("path-unusable")
	if code := p.wait(); code != 125 {
		t.Errorf("exit %d, want 125 (tandem failed)", code)
	}
	for field, want := range map[string]string{"level": "error", "flag": flag, "dir": dir, "uid": uid, "cause": cause} {
		if got := line.Field(field); got != want {
			t.Errorf("path-unusable %s = %q, want %q (line %v)", field, got, want, line)
		}
	}
	msg := line.Field("message")
	for _, want := range []string{flag, dir, "uid " + uid, cause} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	if uid == "65534" && line.Field("user") != "uid 65534 (nobody)" {
		t.Errorf("user %q, want uid 65534 (nobody) from /etc/passwd", line.Field("user"))
	}
	return line
}

// wantNothingRan: CMD never started (no line, no marker) and --wait-for was
// never started either.
func wantNothingRan(t *testing.T, p *tandemProc, marker string) {
	t.Helper()
	for _, ev := range []string{"cmd-started", "waiting", "cmd-exited"} {
		if p.hasEvent(ev) {
			t.Errorf("logged %s: something ran before the path fault was caught", ev)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%s exists: CMD ran", filepath.Base(marker))
	}
}

// wantUnchanged: the file at path still holds want.
func wantUnchanged(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || string(data) != want {
		t.Errorf("%s now holds %q (%v), want it untouched: %q", path, data, err, want)
	}
}
