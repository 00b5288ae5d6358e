package integration

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// --ready-when with one condition of each kind and --ready-file: the ready
// file appears only once every condition holds, and goes when CMD stops.
// The test makes the conditions hold one at a time and checks, after tandem
// logged each, that the file is still absent.
func TestSidecarReadyFile(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready, done, out := inDir(dir, "ready"), inDir(dir, "done"), inDir(dir, "signals")
	gateFile, gateExec := inDir(dir, "gate-file"), inDir(dir, "gate-exec")

	port, listen := scUnlistenedPort(t)
	tcpCond := "tcp:127.0.0.1:" + strconv.Itoa(port)

	var healthy atomic.Bool
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/ready" || !healthy.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})}
	go func() { _ = srv.Serve(l) }() // http.ErrServerClosed, at cleanup
	t.Cleanup(func() { srv.Close() })
	httpCond := "http://" + scHTTPAddr(l) + "/ready"
	// The system's test(1), not a helper: a -race test binary sleeps a
	// second at exit (GORACE atexit_sleep_ms), longer than a probe may take.
	testProg, err := exec.LookPath("test")
	if err != nil {
		t.Skipf("no test(1) for the exec: condition: %v", err)
	}
	execCond := "exec:" + testProg + " -e " + gateExec

	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--poll-interval", "1h", "--done-file", done,
		"--ready-file", ready, "--ready-when", "file:" + gateFile, "--ready-when", tcpCond,
		"--ready-when", httpCond, "--ready-when", execCond}, helper("record-signals", out, "15"))...)
	waitReadyPID(t, out)

	holds := func(cond string) {
		t.Helper()
		p.waitFor("condition holds "+cond, func(l kit.Line) bool {
			return l.Is("condition-holds") && l.Field("condition") == cond
		})
		if _, err := os.Stat(ready); err == nil {
			t.Fatalf("ready file written while conditions were still pending (after %s)", cond)
		}
	}
	scWriteFile(t, gateFile, "")
	holds("file:" + gateFile)
	listen()
	holds(tcpCond)
	healthy.Store(true)
	holds(httpCond)
	scWriteFile(t, gateExec, "")

	written := p.waitEvent("ready-written")
	if written.Field("path") != ready {
		t.Fatalf("ready file written at %q, want %s", written.Field("path"), ready)
	}
	scWantStatus(t, ready, "ready", 0, "", "ready")
	if info, err := os.Stat(ready); err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("ready file mode: %v %v, want 0644", info.Mode(), err)
	}

	scWriteFile(t, done, "")
	p.scWantExit(0, "stopped")
	if _, err := os.Stat(ready); !os.IsNotExist(err) {
		t.Fatalf("ready file still there after CMD stopped: %v", err)
	}
}

// Without --ready-when, the ready file is written as soon as CMD started,
// and removed when CMD exits by itself too.
func TestSidecarReadyFileWithoutConditions(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	ready, out := inDir(dir, "ready"), inDir(dir, "signals")
	p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--ready-file", ready},
		helper("record-signals", out, "10", "4"))...)
	pid := waitReadyPID(t, out)
	p.waitEvent("ready-written")
	scWantStatus(t, ready, "ready", 0, "", "ready")
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	p.scWantExit(4, "exited")
	if _, err := os.Stat(ready); !os.IsNotExist(err) {
		t.Fatalf("ready file still there after CMD exited: %v", err)
	}
}
