package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// tandem in a container with readOnlyRootFilesystem and runAsUser: a mount
// namespace where every mount is read-only except one directory (the
// emptyDir), tandem as uid/gid 65534. It works, writes only its own files
// into the emptyDir (nothing else is writable, so it needs nothing else),
// and skips the default termination log with a debug line, not an error.
func TestFaultReadOnlyRootNonRoot(t *testing.T) {
	t.Parallel()
	t.Run("main", func(t *testing.T) {
		t.Parallel()
		bins, rw := readOnlyRootSetup(t)
		done := filepath.Join(rw, "done")
		p := startTandem(t, readOnlyRootOptions(t, bins, rw),
			cmdArgs([]string{"main", "--done-file", done}, bins.helperArgv("exit", "3"))...)
		if code := p.wait(); code != 3 {
			t.Fatalf("tandem main exited %d, want CMD's 3", code)
		}
		checkQuietRun(t, p)
		var status struct {
			ExitCode int    `json:"exitCode"`
			Reason   string `json:"reason"`
		}
		data, err := os.ReadFile(done)
		mustDo(t, err)
		if err := json.Unmarshal(data, &status); err != nil || status.ExitCode != 3 || status.Reason != "exited" {
			t.Errorf("done file %q; want exitCode 3, reason exited", data)
		}
		info, err := os.Stat(done)
		mustDo(t, err)
		if st := info.Sys().(*syscall.Stat_t); st.Uid != nobody || info.Mode().Perm() != 0o644 {
			t.Errorf("done file owned by uid %d with mode %o; want uid %d (tandem's) and 0644", st.Uid, info.Mode().Perm(), nobody)
		}
		checkOnlyFiles(t, rw, "done")
	})
	t.Run("sidecar", func(t *testing.T) {
		t.Parallel()
		bins, rw := readOnlyRootSetup(t)
		done, ready, signals := filepath.Join(rw, "done"), filepath.Join(rw, "ready"), filepath.Join(rw, "signals")
		p := startTandem(t, readOnlyRootOptions(t, bins, rw),
			cmdArgs([]string{"sidecar", "--done-file", done, "--ready-file", ready, "--ready-when", "file:" + signals},
				bins.helperArgv("record-signals", signals, "15"))...)
		killCMDOnCleanup(t, signals)
		waitFile(t, ready)
		// The main, in another container, writes the done file.
		announceDone(t, done)
		if code := p.wait(); code != 0 {
			t.Fatalf("sidecar exited %d, want 0", code)
		}
		checkQuietRun(t, p)
		// The ready file is removed when CMD stops.
		checkOnlyFiles(t, rw, "done", "signals")
	})
}

// readOnlyRootSetup copies the binaries where uid 65534 can run them and
// makes the emptyDir inside that (soon read-only) directory.
func readOnlyRootSetup(t *testing.T) (faultBinaries, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a read-only mount namespace and a switch to uid 65534 need root")
	}
	bins := faultUserBinaries(t)
	rw := filepath.Join(bins.dir, "emptydir")
	mustDo(t, os.Mkdir(rw, 0o777))
	mustDo(t, os.Chmod(rw, 0o777))
	return bins, rw
}

func readOnlyRootOptions(t *testing.T, bins faultBinaries, rw string) procOptions {
	t.Helper()
	return procOptions{
		prefix: bins.helperArgv("fault-ro-root", rw, bins.tandem),
		// Go makes / private (MS_REC|MS_PRIVATE) in the new namespace, so
		// nothing done there reaches the test's mounts.
		attr: &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS},
	}
}

// checkQuietRun: no warning or error, and the termination log was skipped
// with a debug line.
func checkQuietRun(t *testing.T, p *tandemProc) {
	t.Helper()
	p.mu.Lock()
	lines := append([]kit.Line(nil), p.lines...)
	p.mu.Unlock()
	skipped := false
	for _, l := range lines {
		switch {
		case l.Field("level") == "warn" || l.Field("level") == "error":
			t.Errorf("unexpected %s: %v", l.Field("level"), l)
		case l.Field("message") == "termination log skipped: the default path is missing or not writable":
			skipped = l.Field("level") == "debug" && l.Field("path") == "/dev/termination-log"
		}
	}
	if !skipped {
		t.Error("no debug line saying the default termination log was skipped")
	}
	for _, raw := range p.rawLines() {
		if len(raw) > 0 && raw[0] != '{' {
			t.Errorf("unexpected output: %s", raw)
		}
	}
}

func checkOnlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	mustDo(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the emptyDir holds %q, want %q", got, want)
	}
}
