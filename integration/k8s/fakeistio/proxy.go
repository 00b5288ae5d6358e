package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// quitHandler is pilot-agent's /quitquitquit rule: loopback only (403),
// then POST only (405); quit is closed once on success.
func quitHandler(quit chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			fmt.Printf("quitquitquit from %s refused: not loopback\n", host)
			http.Error(w, "Only requests from localhost are allowed", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodPost {
			fmt.Printf("quitquitquit %s refused: not POST\n", r.Method)
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		_, _ = w.Write([]byte("OK"))
		fmt.Println("handling /quitquitquit, notifying pilot-agent to exit")
		select {
		case quit <- struct{}{}:
		default:
		}
	}
}

// proxyMux serves the quit and readiness routes; ready closed is the
// proxy ready (503 before, as pilot-agent answers while Envoy starts).
func proxyMux(quit chan<- struct{}, ready <-chan struct{}) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/quitquitquit", quitHandler(quit))
	mux.HandleFunc("/healthz/ready", func(w http.ResponseWriter, _ *http.Request) {
		select {
		case <-ready:
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	return mux
}

// readyAfterVar delays the proxy's readiness (a Go duration): a proxy
// that waits for its configuration. Once ready, the stand-in logs
// "TIME istio-proxy Started", a line of the k8s tests' timelines.
const readyAfterVar = "FAKEISTIO_READY_AFTER"

// readiness is closed once the proxy is ready: at once, or after
// readyAfterVar's delay.
func readiness() (<-chan struct{}, error) {
	ready := make(chan struct{})
	after := os.Getenv(readyAfterVar)
	if after == "" {
		close(ready)
		return ready, nil
	}
	d, err := time.ParseDuration(after)
	if err != nil {
		return nil, fmt.Errorf("%s %q: expected a duration such as 5s", readyAfterVar, after)
	}
	time.AfterFunc(d, func() {
		fmt.Printf("%s istio-proxy Started\n", time.Now().UTC().Format(time.RFC3339Nano))
		close(ready)
	})
	return ready, nil
}

// drainBound is how long the stand-in waits for its answers to be out
// before it exits: pilot-agent's default termination drain.
const drainBound = 5 * time.Second

// serveProxy serves on 15020 and 15021 until /quitquitquit or SIGTERM.
func serveProxy() error {
	var listeners []net.Listener
	for _, addr := range []string{":15020", ":15021"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		listeners = append(listeners, l)
	}
	ready, err := readiness()
	if err != nil {
		return err
	}
	route, target, err := forwardRoute()
	if err != nil {
		return err
	}
	if route != nil {
		defer route.Close()
		go forward(route, target)
		fmt.Printf("forwarding %s to %s\n", route.Addr(), target)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return runProxy(ctx, listeners, ready)
}

// runProxy serves on listeners until /quitquitquit or ctx ends, then
// returns once every answer is written and its connection closed.
// pilot-agent answers the quit, then SIGTERMs itself and drains: its
// caller always reads the 200. Exiting as soon as the handler signals
// could cut that answer off.
func runProxy(ctx context.Context, listeners []net.Listener, ready <-chan struct{}) error {
	quit := make(chan struct{}, 1)
	srv := &http.Server{Handler: proxyMux(quit, ready)}
	for _, l := range listeners {
		go func() { _ = srv.Serve(l) }()
	}
	fmt.Println("istio-proxy stand-in ready on 15020 and 15021")
	select {
	case <-quit:
	case <-ctx.Done():
		fmt.Println("SIGTERM: exiting")
	}
	drain, cancel := context.WithTimeout(context.Background(), drainBound)
	defer cancel()
	return srv.Shutdown(drain)
}
