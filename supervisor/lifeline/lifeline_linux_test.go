package lifeline

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test binary plays a holder in another process, to be SIGKILLed.
func TestMain(m *testing.M) {
	if path := os.Getenv("LIFELINE_TEST_HOLD"); path != "" {
		if _, err := Hold(path, "pod-1"); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		// A child that would keep the FIFO open if it were inherited.
		child := exec.Command("sleep", "60")
		if err := child.Start(); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		select {}
	}
	os.Exit(m.Run())
}

const bound = 10 * time.Second

func waitReturns(t *testing.T, l *Line) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- l.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait: %v", err)
		}
	case <-time.After(bound):
		t.Fatal("Wait did not return after the holder let go")
	}
}

func TestHoldWatchRelease(t *testing.T) {
	path := Of(filepath.Join(t.TempDir(), "done"))
	h, err := Hold(path, "pod-1")
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&os.ModeNamedPipe == 0 || info.Mode().Perm() != 0o666 {
		t.Fatalf("lifeline %v, %v: want a FIFO of mode 0666", info, err)
	}
	l, err := Watch(path, "pod-1")
	if err != nil {
		t.Fatalf("Watch while held: %v", err)
	}
	defer l.Close()
	h.Release()
	waitReturns(t, l)
	// A normal release leaves nothing behind.
	if _, err := Watch(path, "pod-1"); !errors.Is(err, ErrAbsent) {
		t.Fatalf("Watch after release: %v, want ErrAbsent", err)
	}
}

// SIGKILL of the holder releases it, though its child (which must not have
// inherited the FIFO) lives on.
func TestHolderKilled(t *testing.T) {
	path := Of(filepath.Join(t.TempDir(), "done"))
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), "LIFELINE_TEST_HOLD="+path)
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	l, err := Watch(path, "pod-1")
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer l.Close()
	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	waitReturns(t, l)
}

func TestWatchFaults(t *testing.T) {
	dir := t.TempDir()
	if _, err := Watch(filepath.Join(dir, "absent"), "pod-1"); !errors.Is(err, ErrAbsent) {
		t.Errorf("absent: %v, want ErrAbsent", err)
	}
	asDir := filepath.Join(dir, "d.lifeline")
	asFile := filepath.Join(dir, "f.lifeline")
	if err := os.Mkdir(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(asFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{asDir: "directory", asFile: "regular file"} {
		var unusable *UnusableError
		_, err := Watch(path, "pod-1")
		if !errors.As(err, &unusable) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an unusable lifeline naming it and %q", path, err, what)
		}
	}
	// Hold leaves them alone and says why.
	for _, path := range []string{asDir, asFile} {
		var unusable *UnusableError
		if _, err := Hold(path, "pod-1"); !errors.As(err, &unusable) {
			t.Errorf("Hold over %s: %v, want an unusable lifeline", path, err)
		}
	}
	if info, err := os.Lstat(asFile); err != nil || !info.Mode().IsRegular() {
		t.Errorf("Hold replaced the regular file: %v, %v", info, err)
	}
}

// A new holder (the next main of an OnFailure pod) replaces the lifeline.
func TestSame(t *testing.T) {
	path := Of(filepath.Join(t.TempDir(), "done"))
	h1, err := Hold(path, "pod-1")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Watch(path, "pod-1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	h1.kill()
	if !l.Same() {
		t.Fatal("not the same before any replacement")
	}
	h2, err := Hold(path, "pod-1")
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Release()
	if l.Same() {
		t.Fatal("still the same after a new holder")
	}
	again, err := Watch(path, "pod-1")
	if err != nil {
		t.Fatalf("new lifeline: %v, want attached", err)
	}
	again.Close()
}

// A lifeline is stamped with its holder's pod: a sidecar of another pod
// sharing the volume by mistake does not take it for its own main's.
func TestForeign(t *testing.T) {
	path := Of(filepath.Join(t.TempDir(), "done"))
	h, err := Hold(path, "export-7xk2p")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if _, err := Watch(path, "export-9abcd"); !errors.Is(err, ErrForeign) {
		t.Fatalf("another pod's sidecar: %v, want ErrForeign", err)
	}
	l, err := Watch(path, "export-7xk2p")
	if err != nil {
		t.Fatalf("its own pod's sidecar: %v, want attached", err)
	}
	l.Close()
	if hostTag("a") == hostTag("b") || hostTag("a")%1000 != 0 || hostTag("") == 0 {
		t.Fatal("host tags must tell hosts apart, in whole microseconds, never 0")
	}
}

// The holder says what it will write: a watcher reads a sidecar's stopped
// file's lifeline apart from a main's, and the host still tells pods
// apart. A FIFO tandem did not stamp reads as a main's, of no pod.
func TestKind(t *testing.T) {
	for _, kind := range []Kind{KindDone, KindStopped} {
		path := Of(filepath.Join(t.TempDir(), "done"))
		h, err := HoldAs(path, "export-7xk2p", kind)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Watch(path, "export-9abcd"); !errors.Is(err, ErrForeign) {
			t.Errorf("kind %d, another pod's sidecar: %v, want ErrForeign", kind, err)
		}
		l, err := Watch(path, "export-7xk2p")
		if err != nil {
			t.Fatalf("kind %d, its own pod's sidecar: %v, want attached", kind, err)
		}
		if l.Kind() != kind {
			t.Errorf("watched kind %d, want %d", l.Kind(), kind)
		}
		l.Close()
		h.Release()
	}
	for _, nsec := range []int64{0, 1, 999, 123_456_789} {
		if _, kind, ok := unstamp(nsec); ok || kind != KindDone {
			t.Errorf("unstamp(%d) = kind %d, stamped %v; want no stamp", nsec, kind, ok)
		}
	}
}
