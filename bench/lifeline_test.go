package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

func TestParseDoneSeen(t *testing.T) {
	log := `{"level":"info","event":"cmd-started","pid":7}
not json
{"level":"warn","event":"main-lost","path":"/x/done"}
{"level":"info","event":"done-seen","source":"lost","path":"/x/done"}
{"level":"info","event":"done-seen","source":"done-file"}
`
	got, err := parseDoneSeen([]byte(log))
	if err != nil || got != "lost" {
		t.Errorf("parseDoneSeen = %q, %v; want the first done-seen's source, lost", got, err)
	}
	if got, err := parseDoneSeen([]byte(`{"event":"cmd-started"}` + "\n")); err == nil {
		t.Errorf("parseDoneSeen without done-seen = %q, want an error", got)
	}
}

func TestParseMainTimes(t *testing.T) {
	t0, took, err := parseMainTimes("1764576000000000000 1764576000000250000")
	if err != nil || t0.UnixNano() != 1764576000000000000 || took != 250*time.Microsecond {
		t.Errorf("parseMainTimes = %v, %v, %v; want t0 and 250µs", t0, took, err)
	}
	for _, bad := range []string{"", "12", "a b", "20 10", "1 2 3"} {
		if _, _, err := parseMainTimes(bad); err == nil {
			t.Errorf("parseMainTimes(%q): no error", bad)
		}
	}
}

func TestFDStateSeesTheFIFOAndInotify(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "done.lifeline")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var want unix.Stat_t
	if err := unix.Stat(fifo, &want); err != nil {
		t.Fatal(err)
	}
	state := func() (bool, bool) {
		t.Helper()
		open, inotify, err := fdState(os.Getpid(), want)
		if err != nil {
			t.Fatal(err)
		}
		return open, inotify
	}
	if open, _ := state(); open {
		t.Fatal("FIFO reported open before it was opened")
	}
	fd, err := unix.Open(fifo, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if open, _ := state(); !open {
		t.Error("FIFO open, not seen")
	}
	unix.Close(fd)
	if open, _ := state(); open {
		t.Error("FIFO closed, still reported open")
	}
	ifd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	if _, inotify := state(); !inotify {
		t.Error("inotify instance held, not seen")
	}
	unix.Close(ifd)
	if _, inotify := state(); inotify {
		t.Error("inotify instance closed, still reported held")
	}
}

// startLifelineMain runs lifelineMain on done in this process until it says
// it holds the lifeline. It returns the trigger to write or close, the rest
// of its output, and its end.
func startLifelineMain(t *testing.T, done string) (trigger *io.PipeWriter, out *bufio.Reader, ended <-chan error) {
	t.Helper()
	triggerR, triggerW := io.Pipe()
	outR, outW := io.Pipe()
	end := make(chan error, 1)
	go func() { end <- lifelineMain(done, triggerR, outW); outW.Close() }()
	out = bufio.NewReader(outR)
	if line, err := out.ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("first line %q, %v; want held", line, err)
	}
	return triggerW, out, end
}

// lifelineMain, run in this process: attached until the trigger, then the
// done file is there before the lifeline lets go, and t0 comes after.
func TestLifelineMainWritesThenReleases(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	triggerW, out, ended := startLifelineMain(t, done)
	line, err := lifeline.Watch(lifeline.Of(done), statusfile.Hostname())
	if err != nil {
		t.Fatalf("lifeline not held after \"held\": %v", err)
	}
	defer line.Close()
	before := time.Now()
	if _, err := triggerW.Write([]byte{'!'}); err != nil {
		t.Fatal(err)
	}
	if err := line.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	f, present, err := statusfile.Read(done)
	if !present || err != nil || f == nil || f.Event != statusfile.EventDone || f.ExitCode != 0 {
		t.Fatalf("done file at release: %+v, present %v, %v", f, present, err)
	}
	times, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	t0, took, err := parseMainTimes(strings.TrimSpace(times))
	if err != nil || t0.Before(before) || t0.Add(took).After(time.Now()) {
		t.Errorf("main's times %q (%v): want t0 and the release between the trigger and now", times, err)
	}
	triggerW.Close()
	if err := <-ended; err != nil {
		t.Errorf("lifelineMain: %v", err)
	}
	if _, err := os.Lstat(lifeline.Of(done)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lifeline left behind after a normal end: %v", err)
	}
}

func TestLifelineMainEOFWritesNothing(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	triggerW, out, ended := startLifelineMain(t, done)
	go func() { _, _ = io.Copy(io.Discard, out) }()
	triggerW.Close()
	if err := <-ended; err != nil {
		t.Errorf("lifelineMain after EOF: %v, want nil", err)
	}
	if _, err := os.Stat(done); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("done file written without a trigger: %v", err)
	}
}
