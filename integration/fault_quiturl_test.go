package integration

import (
	"bufio"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
	"github.com/tandem-sh/tandem/internal/testkit"
)

// faultServer is a TCP listener that answers quit calls and probes the way
// a broken sidecar would. It records each request line it read.
type faultServer struct {
	listener net.Listener
	mu       sync.Mutex
	requests []string
	got      chan string // each request line, as it arrives
}

func startFaultServer(t *testing.T, respond func(conn net.Conn)) *faultServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &faultServer{listener: l, got: make(chan string, 64)}
	var (
		wg    sync.WaitGroup
		conns []net.Conn
	)
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			conns = append(conns, conn)
			s.mu.Unlock()
			wg.Go(func() {
				reader := textproto.NewReader(bufio.NewReader(conn))
				line, err := reader.ReadLine()
				if err != nil {
					return
				}
				_, _ = reader.ReadMIMEHeader()
				s.mu.Lock()
				s.requests = append(s.requests, line)
				s.mu.Unlock()
				select {
				case s.got <- line:
				default:
				}
				respond(conn)
			})
		}
	})
	t.Cleanup(func() {
		l.Close()
		s.mu.Lock()
		for _, c := range conns {
			c.Close() // ends the hanging ones
		}
		s.mu.Unlock()
		wg.Wait()
	})
	return s
}

func (s *faultServer) url(path string) string { return "http://" + s.listener.Addr().String() + path }

// neverAnswer holds the connection open until the test ends.
func neverAnswer(net.Conn) {}

func answerWith(response string) func(net.Conn) {
	return func(conn net.Conn) {
		_, _ = io.WriteString(conn, response)
		conn.Close()
	}
}

// A quit URL that hangs (accepts, never answers), refuses (closed port) or
// answers 500: the call is bounded, logged as a warning, and the stop
// signal follows; the sidecar exits 0 because the main was done.
func TestFaultQuitURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		url       func(t *testing.T) (url string, server *faultServer)
		wantMsg   string
		wantField func(kit.Line) bool
	}{
		{
			name: "hangs",
			url: func(t *testing.T) (string, *faultServer) {
				s := startFaultServer(t, neverAnswer)
				return s.url("/quitquitquit"), s
			},
			wantMsg:   "quit-failed",
			wantField: func(l kit.Line) bool { return l.Field("error") != "" },
		},
		{
			name: "refuses",
			url: func(t *testing.T) (string, *faultServer) {
				return "http://127.0.0.1:" + strconv.Itoa(testkit.ClosedPort(t)) + "/quitquitquit", nil
			},
			wantMsg:   "quit-failed",
			wantField: func(l kit.Line) bool { return l.Field("error") != "" },
		},
		{
			name: "answers 500",
			url: func(t *testing.T) (string, *faultServer) {
				s := startFaultServer(t, answerWith("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"))
				return s.url("/quitquitquit"), s
			},
			wantMsg:   "quit-failed",
			wantField: func(l kit.Line) bool { return l.Num("status") == 500 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			signals := inDir(dir, "signals")
			url, server := tt.url(t)
			// --grace 1s: the quit call is bounded by max(grace, 1s) ≤ 5s, then
			// CMD has one grace to leave before the stop signal.
			p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--quit-url", url, "--grace", "1s"},
				helper("record-signals", signals, "15"))...)
			killCMDOnCleanup(t, signals)
			p.waitEvent("cmd-started")
			p.signal(syscall.SIGUSR2) // the main is done

			failed := p.waitEvent(tt.wantMsg)
			if failed.Field("url") != url || failed.Field("level") != "warn" || !tt.wantField(failed) {
				t.Errorf("log line %v; want level warn, url %s and the cause", failed, url)
			}
			p.waitEvent("stop-sent")
			if code := p.wait(); code != 0 {
				t.Fatalf("sidecar exited %d, want 0", code)
			}
			if lines := readLines(signals); lines[len(lines)-1] != "15" {
				t.Errorf("CMD recorded %q; want SIGTERM (15) after the quit call", lines)
			}
			if server != nil {
				server.mu.Lock()
				requests := append([]string(nil), server.requests...)
				server.mu.Unlock()
				if len(requests) != 1 || requests[0] != "POST /quitquitquit HTTP/1.1" {
					t.Errorf("server got %q; want one POST /quitquitquit", requests)
				}
			}
		})
	}
}
