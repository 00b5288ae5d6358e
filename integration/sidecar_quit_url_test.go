package integration

import (
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/internal/testkit"
)

// scQuitServer is a sidecar's quit endpoint (Istio's /quitquitquit): it
// records each request and runs onQuit, then answers 200.
type scQuitServer struct {
	url string

	mu       sync.Mutex
	requests []string
	onQuit   func()
}

func newQuitServer(t *testing.T) *scQuitServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scQuitServer{url: "http://" + scHTTPAddr(l) + "/quitquitquit"}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		onQuit := s.onQuit
		s.mu.Unlock()
		if onQuit != nil {
			onQuit()
		}
		w.WriteHeader(http.StatusOK)
	})}
	go func() { _ = srv.Serve(l) }() // http.ErrServerClosed, at cleanup
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *scQuitServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// A CMD that leaves by itself when its quit URL is called needs no stop
// signal: the quit call is all the stop it gets.
func TestSidecarQuitURLStopsCMD(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	quit := newQuitServer(t)
	// CMD exits 0 on SIGUSR1, which the quit endpoint sends it: the way a
	// proxy's /quitquitquit makes the proxy leave.
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--poll-interval", "1h", "--quit-url", quit.url, "--grace", "1h", "--done-file", rec.done},
		helper("record-signals", rec.signals, strconv.Itoa(int(syscall.SIGUSR1)), "0"))...)
	pid := waitReadyPID(t, rec.signals)
	quit.mu.Lock()
	quit.onQuit = func() { _ = syscall.Kill(pid, syscall.SIGUSR1) }
	quit.mu.Unlock()
	scWriteFile(t, rec.done, "")

	p.scWantExit(0, "stopped")
	if got := quit.seen(); !slices.Equal(got, []string{"POST /quitquitquit"}) {
		t.Fatalf("quit endpoint got %q, want one POST /quitquitquit", got)
	}
	if p.hasEvent("stop-sent") {
		t.Fatal("stop signal sent although CMD left after the quit call")
	}
	if exited := p.waitEvent("cmd-exited"); exited.Num("exit_code") != 0 || exited.Field("signal") != "" {
		t.Fatalf("CMD exited: %v, want code 0", exited)
	}
	rec.wantReceived("only the quit endpoint's SIGUSR1", strconv.Itoa(int(syscall.SIGUSR1)))
}

// A quit URL that does not make CMD leave: after --grace the stop signal
// follows, as for a sidecar without a quit URL.
func TestSidecarQuitURLIgnoredThenStopSignal(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	quit := newQuitServer(t)
	p := rec.start("sidecar", "--poll-interval", "1h", "--quit-url", quit.url, "--grace", "200ms", "--done-file", rec.done)
	scWriteFile(t, rec.done, "")

	p.scWantExit(0, "stopped")
	if got := quit.seen(); !slices.Equal(got, []string{"POST /quitquitquit"}) {
		t.Fatalf("quit endpoint got %q, want one POST /quitquitquit", got)
	}
	called := p.waitEvent("quit-called")
	if called.Num("status") != 200 || !strings.HasSuffix(called.Field("url"), "/quitquitquit") {
		t.Fatalf("quit URL called: %v", called)
	}
	p.scWantOrder("done-seen", "quit-called", "stop-sent", "cmd-exited")
	rec.wantReceived("only SIGTERM (15)", "15")
}

// A CMD that exits on its quit call before it answers (cloud-sql-proxy
// does): the call reached it, so tandem logs quit-called, answered false,
// before it exits 0; it neither drops the outcome nor calls it a failure.
func TestSidecarQuitURLProgramExitsBeforeAnswering(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	addr := "127.0.0.1:" + strconv.Itoa(testkit.ClosedPort(t))
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--poll-interval", "1h", "--quit-url", "http://" + addr + "/quitquitquit", "--grace", "1h", "--done-file", rec.done},
		helper("sc-quit-exits", addr, rec.signals))...)
	waitReadyPID(t, rec.signals)
	scWriteFile(t, rec.done, "")

	p.scWantExit(0, "stopped")
	if p.hasEvent("quit-failed") {
		t.Fatal("quit-failed logged for a call the program took")
	}
	if called := p.waitEvent("quit-called"); called.Field("answered") != "false" {
		t.Fatalf("quit URL called: %v; want answered false", called)
	}
	if exited := p.waitEvent("cmd-exited"); exited.Num("exit_code") != 0 {
		t.Fatalf("CMD exited: %v, want code 0", exited)
	}
}
