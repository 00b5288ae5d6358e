package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
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

func proxyMux(quit chan<- struct{}) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/quitquitquit", quitHandler(quit))
	mux.HandleFunc("/healthz/ready", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	return mux
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
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return runProxy(ctx, listeners)
}

// runProxy serves on listeners until /quitquitquit or ctx ends, then
// returns once every answer is written and its connection closed.
// pilot-agent answers the quit, then SIGTERMs itself and drains: its
// caller always reads the 200. Exiting as soon as the handler signals
// could cut that answer off.
func runProxy(ctx context.Context, listeners []net.Listener) error {
	quit := make(chan struct{}, 1)
	srv := &http.Server{Handler: proxyMux(quit)}
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
