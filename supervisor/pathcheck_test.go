package supervisor

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// A directory at the main's done file is a usage error before anything
// runs, and stays (the CLI checks it first; this is the engine's guard).
func TestMainDoneFileIsDirectory(t *testing.T) {
	cfg := mainConfig(t, nil)
	if err := os.Mkdir(cfg.Main.DoneFile, 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, cfg).run()
	r.wantOutcome(2, "error")
	select {
	case <-r.f.starts:
		t.Fatal("CMD started")
	default:
	}
	if info, err := os.Stat(cfg.Main.DoneFile); err != nil || !info.IsDir() {
		t.Fatalf("the directory is gone: %v", err)
	}
}

// A sidecar's stopped or ready file that is a directory: the same, and the
// stale stopped file is not removed.
func TestSidecarFileIsDirectory(t *testing.T) {
	for _, flag := range []string{cmdline.FlagStoppedFile, cmdline.FlagReadyFile} {
		t.Run(flag, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "file")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := sidecarConfig(func(s *SidecarConfig) {
				if flag == cmdline.FlagStoppedFile {
					s.StoppedFile = dir
				} else {
					s.ReadyFile = dir
				}
			})
			r := newRig(t, cfg).run()
			r.wantOutcome(2, "error")
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				t.Fatalf("the directory is gone: %v", err)
			}
		})
	}
}

var unsearchableDir = &pathError{flag: cmdline.FlagDoneFile, path: "/shared/done", dir: "/shared", what: "search directory",
	err: unix.EACCES}

// A done condition that cannot be known at start: 125, CMD never started.
func TestSidecarDoneUnknowableAtStart(t *testing.T) {
	r := newRig(t, sidecarConfig(nil))
	r.source.failing = unsearchableDir
	r.run()
	r.wantOutcome(125, "error")
	select {
	case <-r.f.starts:
		t.Fatal("CMD started")
	default:
	}
}

// It becomes unknowable while CMD runs: CMD is stopped, tandem fails (125,
// not the 0 of a requested stop).
func TestSidecarDoneUnknowableWhileRunning(t *testing.T) {
	r := newRig(t, sidecarConfig(nil)).run()
	c := r.child()
	r.source.events <- doneEvent{Err: unsearchableDir}
	r.wantSent(c.Pid, unix.SIGTERM)
	c.exited <- killedBy(unix.SIGTERM)
	r.wantOutcome(125, "error")
}

// Two spellings of one file are the same path; a relative one is taken
// from the working directory.
func TestSamePath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"pf/d", "./pf/d", true},
		{"pf/d", wd + "//pf/d", true},
		{"/run/tandem/a", "/run/tandem/b", false},
		{"pf/d", "pf/d/", true},
	} {
		if got := SamePath(tt.a, tt.b); got != tt.same {
			t.Errorf("SamePath(%q, %q) = %v; want %v", tt.a, tt.b, got, tt.same)
		}
	}
}
