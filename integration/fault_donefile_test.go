package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A done file that is not what tandem writes still counts as done (as users rely on: a
// file that does not parse counts as present, status unknown): a directory,
// a file tandem cannot read, a huge one, a sparse multi-GB one, one that is
// not JSON, a named pipe (whose open would block). Where the file cannot be
// read at all, a warning says so. tandem reads at most 64 KiB of it.
type oddDoneFile struct {
	name string
	// make creates the odd file at path (a staging name, renamed into place).
	make func(t *testing.T, path string)
	// warns: tandem logs that it cannot read the file.
	warns bool
	// asNobody: tandem runs as uid 65534 (root reads a mode 000 file).
	asNobody bool
}

var oddDoneFiles = []oddDoneFile{
	{name: "directory", warns: true, make: func(t *testing.T, path string) {
		mustDo(t, os.Mkdir(path, 0o755))
	}},
	{name: "unreadable", warns: true, asNobody: true, make: func(t *testing.T, path string) {
		mustDo(t, os.WriteFile(path, []byte(`{"version":1,"event":"done","exitCode":3}`+"\n"), 0o000))
		mustDo(t, os.Chmod(path, 0o000))
	}},
	{name: "not JSON", make: func(t *testing.T, path string) {
		mustDo(t, os.WriteFile(path, []byte("main finished, have a nice day\n"), 0o644))
	}},
	{name: "huge garbage", make: func(t *testing.T, path string) {
		mustDo(t, os.WriteFile(path, []byte(strings.Repeat("x", 4<<20)), 0o644))
	}},
	{name: "status line over 64 KiB", make: func(t *testing.T, path string) {
		line := `{"version":1,"event":"done","exitCode":3,"name":"` + strings.Repeat("n", 100<<10) + `"}` + "\n"
		mustDo(t, os.WriteFile(path, []byte(line), 0o644))
	}},
	{name: "sparse 16 GiB", make: func(t *testing.T, path string) {
		f, err := os.Create(path)
		mustDo(t, err)
		defer f.Close()
		if err := f.Truncate(16 << 30); err != nil {
			t.Skipf("cannot make a sparse file here: %v", err)
		}
	}},
	{name: "named pipe", warns: true, make: func(t *testing.T, path string) {
		mustDo(t, unix.Mkfifo(path, 0o644))
	}},
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The odd file appears while CMD runs: CMD is stopped, tandem exits 0.
func TestFaultOddDoneFileWhileRunning(t *testing.T) {
	t.Parallel()
	for _, odd := range oddDoneFiles {
		t.Run(odd.name, func(t *testing.T) {
			t.Parallel()
			bins, dir := faultUserBinaries(t), ""
			opts := procOptions{}
			cmd := helper("record-signals")
			if odd.asNobody {
				opts = bins.asNobody(t)
				cmd = bins.helperArgv("record-signals")
				dir = worldWritableDir(t)
			} else {
				dir = tempDir(t)
			}
			done, signals := filepath.Join(dir, "done"), filepath.Join(dir, "signals")
			// CMD records the stop signal and stays: tandem is still alive to
			// be measured once it has read the file and stopped CMD.
			p := startTandem(t, opts, cmdArgs([]string{"sidecar", "--done-file", done, "--grace", "1h"},
				append(cmd, signals))...)
			cmdPID := killCMDOnCleanup(t, signals)
			p.waitEvent("cmd-started")

			staging := filepath.Join(dir, ".staging")
			odd.make(t, staging)
			mustDo(t, os.Rename(staging, done))

			checkOddDoneSeen(t, p, odd, done)
			p.waitEvent("stop-sent")
			if lines := waitLines(t, signals, 2); lines[1] != "15" {
				t.Errorf("CMD recorded %q; want it stopped by SIGTERM (15)", lines)
			}
			checkSmallRSS(t, p)
			mustDo(t, unix.Kill(cmdPID, unix.SIGKILL)) // as the end of --grace would
			if code := p.wait(); code != 0 {
				t.Fatalf("sidecar exited %d, want 0", code)
			}
		})
	}
}

// The odd file is there before the sidecar starts: the main is done, CMD is
// not started, tandem exits 0 (and does not hang on a pipe).
func TestFaultOddDoneFileAtStart(t *testing.T) {
	t.Parallel()
	for _, odd := range oddDoneFiles {
		t.Run(odd.name, func(t *testing.T) {
			t.Parallel()
			opts, dir := procOptions{}, tempDir(t)
			if odd.asNobody {
				bins := faultUserBinaries(t)
				opts, dir = bins.asNobody(t), worldWritableDir(t)
			}
			done := filepath.Join(dir, "done")
			odd.make(t, done)
			p := startTandem(t, opts, cmdArgs([]string{"sidecar", "--done-file", done}, helper("exit", "7"))...)
			checkOddDoneSeen(t, p, odd, done)
			p.waitEvent("not-started")
			if code := p.wait(); code != 0 {
				t.Fatalf("sidecar exited %d, want 0", code)
			}
			if p.hasEvent("cmd-started") {
				t.Error("CMD was started although the main was done")
			}
		})
	}
}

func checkOddDoneSeen(t *testing.T, p *tandemProc, odd oddDoneFile, done string) {
	t.Helper()
	if odd.warns {
		warning := p.waitEvent("done-file-unreadable")
		if warning.Field("level") != "warn" || warning.Field("path") != done || warning.Field("error") == "" {
			t.Errorf("warning %v; want level warn, path %s and the error", warning, done)
		}
	}
	seen := p.waitEvent("done-seen")
	if seen.Field("path") != done {
		t.Errorf("done seen as %v; want path %s", seen, done)
	}
	// Status unknown: no exit code is claimed for the main.
	if _, claimed := seen.Fields["main_exit_code"]; claimed {
		t.Errorf("done seen as %v; a file that does not parse has no exit code", seen)
	}
}

// checkSmallRSS: tandem's peak RSS (VmHWM, since its exec) stayed at a few
// MB, whatever the size of the file: one that read a multi-GB file would be
// far above.
func checkSmallRSS(t *testing.T, p *tandemProc) {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("read tandem's status: %v", err)
	}
	const limitKiB = 32 << 10
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if kib == 0 || kib > limitKiB {
				t.Errorf("tandem's peak RSS is %d KiB, want at most %d KiB: the done file was not read within 64 KiB", kib, limitKiB)
			}
			return
		}
	}
	t.Fatalf("no VmHWM in tandem's status:\n%s", status)
}
