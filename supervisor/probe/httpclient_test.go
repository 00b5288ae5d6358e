package probe

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/internal/testkit"
)

// rawServer is a TCP listener whose every connection is handled by serve:
// it can answer anything, malformed or nothing at all.
type rawServer struct {
	listener net.Listener
	mu       sync.Mutex
	requests []string // first line of each request read by readRequest
	conns    []net.Conn
}

func startRawServer(t *testing.T, serve func(s *rawServer, conn net.Conn)) *rawServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{listener: l}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
			wg.Go(func() { serve(s, conn) })
		}
	})
	t.Cleanup(func() {
		l.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		wg.Wait()
	})
	return s
}

func (s *rawServer) target(path string) Target {
	addr := s.listener.Addr().String()
	return Target{hostPort: addr, host: addr, path: path}
}

// readRequest reads a request line and headers, and records the line.
func (s *rawServer) readRequest(conn net.Conn) (textproto.MIMEHeader, bool) {
	r := textproto.NewReader(bufio.NewReader(conn))
	line, err := r.ReadLine()
	if err != nil {
		return nil, false
	}
	header, err := r.ReadMIMEHeader()
	if err != nil {
		return nil, false
	}
	s.mu.Lock()
	s.requests = append(s.requests, line)
	s.mu.Unlock()
	return header, true
}

func answer(response string) func(*rawServer, net.Conn) {
	return func(s *rawServer, conn net.Conn) {
		defer conn.Close()
		if _, ok := s.readRequest(conn); ok {
			_, _ = io.WriteString(conn, response)
		}
	}
}

func TestHTTPRequest(t *testing.T) {
	tests := []struct {
		name     string
		serve    func(*rawServer, net.Conn)
		wantCode int
		wantErr  string
	}{
		{name: "200", serve: answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), wantCode: 200},
		{name: "500", serve: answer("HTTP/1.1 500 Internal Server Error\r\n\r\n"), wantCode: 500},
		{name: "204 HTTP/1.0 without headers", serve: answer("HTTP/1.0 204 No Content\r\n"), wantCode: 204},
		{name: "status line without reason", serve: answer("HTTP/1.1 200\r\n\r\n"), wantCode: 200},
		{name: "not HTTP", serve: answer("SSH-2.0-OpenSSH_9.6\r\n"), wantErr: "malformed status line"},
		{name: "code not a number", serve: answer("HTTP/1.1 OK 200\r\n\r\n"), wantErr: "malformed status line"},
		{name: "code out of range", serve: answer("HTTP/1.1 42 Odd\r\n\r\n"), wantErr: "malformed status line"},
		{name: "closes without answering", serve: answer(""), wantErr: ErrNoAnswer.Error()},
		{name: "closes before reading the request", serve: func(_ *rawServer, conn net.Conn) { conn.Close() }, wantErr: ErrNoAnswer.Error()},
		{name: "closes mid status line", serve: answer("HTTP/1.1 2"), wantErr: "malformed status line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := startRawServer(t, tt.serve)
			code, err := Request(context.Background(), "POST", server.target("/quitquitquit"), 10*time.Second)
			if testkit.WantsError(t, err, tt.wantErr, "Request = %d", code) {
				return
			}
			if err != nil || code != tt.wantCode {
				t.Fatalf("httpRequest = %d, %v; want %d", code, err, tt.wantCode)
			}
		})
	}
}

// The request is one well-formed HTTP/1.1 request with Connection: close.
func TestHTTPRequestSendsOneRequest(t *testing.T) {
	headers := make(chan textproto.MIMEHeader, 1)
	server := startRawServer(t, func(s *rawServer, conn net.Conn) {
		defer conn.Close()
		h, ok := s.readRequest(conn)
		if ok {
			headers <- h
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\n\r\n")
		}
	})
	target := server.target("/quit?now=1")
	if _, err := Request(context.Background(), "POST", target, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h := <-headers
	server.mu.Lock()
	line := server.requests[0]
	server.mu.Unlock()
	if line != "POST /quit?now=1 HTTP/1.1" {
		t.Errorf("request line %q", line)
	}
	if h.Get("Host") != target.host || h.Get("Connection") != "close" || h.Get("Content-Length") != "0" {
		t.Errorf("headers %v", h)
	}
}

// A server that accepts and never answers costs the timeout, no more.
func TestHTTPRequestHangingServerIsBounded(t *testing.T) {
	server := startRawServer(t, func(s *rawServer, conn net.Conn) {
		s.readRequest(conn) // then nothing: the connection stays open
	})
	_, err := Request(context.Background(), "GET", server.target("/"), 200*time.Millisecond)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("httpRequest to a silent server = %v; want a deadline error", err)
	}
}

// Cancelling the context ends a call that is waiting for the answer.
func TestHTTPRequestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	server := startRawServer(t, func(s *rawServer, conn net.Conn) {
		if _, ok := s.readRequest(conn); ok {
			cancel()
		}
	})
	if _, err := Request(ctx, "GET", server.target("/"), time.Minute); err == nil {
		t.Fatal("httpRequest after cancel succeeded")
	}
}

// A server that streams a status line without end must not make tandem
// allocate without bound: the answer is read up to 64 KiB, then refused.
func TestHTTPRequestEndlessStatusLine(t *testing.T) {
	server := startRawServer(t, func(s *rawServer, conn net.Conn) {
		if _, ok := s.readRequest(conn); !ok {
			return
		}
		chunk := []byte("HTTP/1.1 200 " + strings.Repeat("x", 32<<10))
		for {
			if _, err := conn.Write(chunk); err != nil {
				return
			}
			chunk = chunk[len(chunk)-32<<10:]
		}
	})
	_, err := Request(context.Background(), "GET", server.target("/"), time.Minute)
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("httpRequest to an endless status line = %v; want it refused before the timeout", err)
	}
}

func TestHTTPRequestConnectionRefused(t *testing.T) {
	port := testkit.ClosedPort(t)
	target := Target{hostPort: "127.0.0.1:" + strconv.Itoa(port), host: "127.0.0.1", path: "/"}
	if _, err := Request(context.Background(), "POST", target, 5*time.Second); err == nil {
		t.Fatal("httpRequest to a closed port succeeded")
	}
}

func TestParseHTTPURL(t *testing.T) {
	tests := []struct {
		in       string
		hostPort string
		host     string
		path     string
		wantErr  string
	}{
		{in: "http://127.0.0.1:15020/quitquitquit", hostPort: "127.0.0.1:15020", host: "127.0.0.1:15020", path: "/quitquitquit"},
		{in: "http://localhost", hostPort: "localhost:80", host: "localhost", path: "/"},
		{in: "http://localhost/", hostPort: "localhost:80", host: "localhost", path: "/"},
		{in: "http://[::1]:9091/quitquitquit?x=1", hostPort: "[::1]:9091", host: "[::1]:9091", path: "/quitquitquit?x=1"},
		{in: "HTTP://Envoy:15000/quitquitquit", hostPort: "Envoy:15000", host: "Envoy:15000", path: "/quitquitquit"},
		{in: "http://h:1/a%20b#frag", hostPort: "h:1", host: "h:1", path: "/a%20b"},
		{in: "http://user:pw@h:8080/x", hostPort: "h:8080", host: "h:8080", path: "/x"},
		{in: "https://127.0.0.1:15020/quitquitquit", wantErr: "https is not supported"},
		{in: "http://", wantErr: "expected http://HOST[:PORT]/PATH"},
		{in: "http:///path", wantErr: "expected http://HOST"},
		{in: "ftp://h/", wantErr: "expected http://HOST"},
		{in: "127.0.0.1:15020/quitquitquit", wantErr: "expected http://HOST"},
		{in: "http://h:0/", wantErr: `port "0"`},
		{in: "http://h:70000/", wantErr: `port "70000"`},
		{in: "http://h:x/", wantErr: "expected http://HOST"},
		{in: "http://h/\r\nX-Injected: 1", wantErr: "expected http://HOST"},
		{in: "http://h/a b", hostPort: "h:80", host: "h", path: "/a%20b"},
		// Found by FuzzParseHTTPURL: the query keeps its raw spaces.
		{in: "http://00? ", hostPort: "00:80", host: "00", path: "/?%20"},
		{in: "http://h/q?a b=c d", hostPort: "h:80", host: "h", path: "/q?a%20b=c%20d"},
		// Found by FuzzParseCondition: accepted, then failed at every dial.
		{in: "http://]", wantErr: `host "]" is not a host name`},
		{in: "http://:8080/", wantErr: `host "" is not a host name`},
		// Found by FuzzParseHTTPURL: a zone decodes to any byte, and the
		// Host header is built from it.
		{in: "http://[0000::0%250000%20]", wantErr: "is not a host name"},
		{in: "http://[::1%25%0d%0aX-Injected:%20a]:80/", wantErr: `"http://[::1%25%0d%0aX-Injected:%20a]:80/"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseURL(tt.in)
			if testkit.WantsError(t, err, tt.wantErr, "ParseURL(%q) = %+v", tt.in, got) {
				return
			}
			want := Target{raw: tt.in, hostPort: tt.hostPort, host: tt.host, path: tt.path}
			if err != nil || got != want {
				t.Fatalf("ParseURL(%q) = %+v, %v; want %+v", tt.in, got, err, want)
			}
		})
	}
}
