package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"sync"
	"time"
)

// store is an artifact repository as far as a step's upload meets one: PUT
// keeps the body under its path (after --put-delay: a slow backend, so an
// upload outlasts the step's main), GET gives it back.
//
//	standin store [--name N] --http ADDR [--put-delay D]
func store(args []string) int {
	fs := flag.NewFlagSet("store", flag.ExitOnError)
	name := fs.String("name", "store", "name printed on every line")
	addr := fs.String("http", ":8080", "HTTP address")
	delay := fs.Duration("put-delay", 0, "how long a PUT takes before it is answered")
	_ = fs.Parse(args)

	var mu sync.Mutex
	kept := map[string][]byte{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPut:
			body, err := io.ReadAll(r.Body)
			if err != nil {
				say(*name, "PUT %s: %v", r.URL.Path, err)
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			say(*name, "receiving PUT %s (%d bytes)", r.URL.Path, len(body))
			time.Sleep(*delay)
			mu.Lock()
			kept[r.URL.Path] = body
			mu.Unlock()
			say(*name, "stored %s (%d bytes)", r.URL.Path, len(body))
			w.WriteHeader(http.StatusCreated)
		case http.MethodGet, http.MethodHead:
			mu.Lock()
			body, ok := kept[r.URL.Path]
			mu.Unlock()
			if !ok {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write(body)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
	srv := &http.Server{Addr: *addr, Handler: handler}
	go func() {
		<-terms()
		_ = srv.Shutdown(context.Background())
	}()
	say(*name, "listening on http %s", *addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		say(*name, "%v", err)
		return 1
	}
	say(*name, "exiting")
	return 0
}
