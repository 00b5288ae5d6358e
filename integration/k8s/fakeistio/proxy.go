package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
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

// serveProxy serves until /quitquitquit or SIGTERM, then exits 0.
func serveProxy() error {
	quit := make(chan struct{}, 1)
	mux := proxyMux(quit)
	for _, addr := range []string{":15020", ":15021"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		go func() { _ = http.Serve(l, mux) }()
	}
	fmt.Println("istio-proxy stand-in ready on 15020 and 15021")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	select {
	case <-quit:
	case <-ctx.Done():
		fmt.Println("SIGTERM: exiting")
	}
	os.Exit(0)
	return nil
}
