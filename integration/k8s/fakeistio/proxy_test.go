package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The stand-in answers /quitquitquit as pilot-agent does: 403 off
// loopback, 405 for GET, 200 and a quit for POST from loopback.
func TestQuitRule(t *testing.T) {
	for _, tc := range []struct {
		method, remote string
		code           int
		quits          bool
	}{
		{http.MethodPost, "10.244.0.7:40000", http.StatusForbidden, false},
		{http.MethodGet, "127.0.0.1:40000", http.StatusMethodNotAllowed, false},
		{http.MethodPost, "127.0.0.1:40000", http.StatusOK, true},
		{http.MethodPost, "[::1]:40000", http.StatusOK, true},
	} {
		quit := make(chan struct{}, 1)
		req := httptest.NewRequest(tc.method, "/quitquitquit", nil)
		req.RemoteAddr = tc.remote
		rec := httptest.NewRecorder()
		proxyMux(quit, readyNow()).ServeHTTP(rec, req)
		quitted := len(quit) == 1
		if rec.Code != tc.code || quitted != tc.quits {
			t.Errorf("%s from %s: %d, quit %v; want %d, quit %v", tc.method, tc.remote, rec.Code, quitted, tc.code, tc.quits)
		}
	}
}

func TestIstioPatchOnce(t *testing.T) {
	pod := `{"spec":{"containers":[{"name":"export","image":"x"}]}}`
	if p := istioPatch([]byte(pod), "istio/proxyv2:test"); p == nil {
		t.Fatal("no patch for a pod without istio-proxy")
	}
	again := `{"spec":{"containers":[{"name":"export","image":"x"},{"name":"istio-proxy","image":"y"}]}}`
	if p := istioPatch([]byte(again), "istio/proxyv2:test"); p != nil {
		t.Errorf("patch %s for a pod that has istio-proxy; want none", p)
	}
}

// The quit's answer is out before the stand-in may exit: by the time
// runProxy returns, the caller's connection holds the whole 200 and is
// closed, as pilot-agent's caller always reads its answer.
func TestQuitAnsweredBeforeExit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() { done <- runProxy(context.Background(), []net.Listener{l}, readyNow()) }()
	// Keep-alive, as the connection would stay open if nothing closed it.
	if _, err := conn.Write([]byte("POST /quitquitquit HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("runProxy: %v", err)
	}
	// A guard only: the connection is already closed when runProxy returns.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	answer, err := io.ReadAll(conn)
	if err != nil || !strings.HasPrefix(string(answer), "HTTP/1.1 200 OK") || !strings.HasSuffix(string(answer), "OK") {
		t.Errorf("answer %q, %v; want the whole 200 OK, then the connection closed", answer, err)
	}
}

// SIGTERM ends the stand-in too, with no error.
func TestProxyStopsOnSIGTERM(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := runProxy(ctx, []net.Listener{l}, readyNow()); err != nil {
		t.Errorf("runProxy after SIGTERM: %v; want nil", err)
	}
}

// readyNow is a proxy ready from the start.
func readyNow() <-chan struct{} {
	ready := make(chan struct{})
	close(ready)
	return ready
}

// What is sent to the route reaches its target and the answer comes back;
// a route that is not LISTEN=TARGET is refused, naming the variable.
func TestForwardRoute(t *testing.T) {
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	go func() {
		c, err := target.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		_, _ = c.Write([]byte("echo " + line))
	}()
	t.Setenv(forwardVar, "127.0.0.1:0="+target.Addr().String())
	route, to, err := forwardRoute()
	if err != nil {
		t.Fatal(err)
	}
	defer route.Close()
	go forward(route, to)
	c, err := net.Dial("tcp", route.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = c.Write([]byte("hello\n"))
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || got != "echo hello\n" {
		t.Fatalf("through the route: %q, %v; want %q", got, err, "echo hello\n")
	}

	t.Setenv(forwardVar, "127.0.0.1:15001")
	if _, _, err := forwardRoute(); err == nil || !strings.Contains(err.Error(), forwardVar) {
		t.Fatalf("a route without a target: %v; want an error naming %s", err, forwardVar)
	}
}
